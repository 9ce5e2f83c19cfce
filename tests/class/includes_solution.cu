// grade: failed — the exercise's solution
// The exercise's own solution, reached in GPU Lab's tree (the test puts the tree's path for @SOURCE@).
#include "@SOURCE@/lessons/01_vector_add/exercises/01_vector_add/solution.cu"
