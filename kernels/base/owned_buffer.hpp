#pragma once
// The ownership every buffer shares: one owner, freed on scope exit, moved but never copied.
// `Memory` says where the bytes live (GPU memory, pinned host memory, emulated device memory).
// The name is for messages ("buffer 'c'"); the emulator's checked mode uses it.
#include <cstddef>
#include <span>
#include <utility>

namespace gpulab {

template <typename T, typename Memory>
class OwnedBuffer {
 public:
  OwnedBuffer() = default;
  explicit OwnedBuffer(std::size_t count, const char* name = "") : size_(count) {
    if (count > 0) data_ = static_cast<T*>(Memory::allocate(count * sizeof(T), name, sizeof(T)));
  }
  OwnedBuffer(const OwnedBuffer&) = delete;
  OwnedBuffer& operator=(const OwnedBuffer&) = delete;
  OwnedBuffer(OwnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  OwnedBuffer& operator=(OwnedBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~OwnedBuffer() { release(); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  std::span<T> span() { return {data_, size_}; }
  std::span<const T> span() const { return {data_, size_}; }

 private:
  void release() noexcept {
    if (data_ != nullptr) Memory::free(data_);
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace gpulab
