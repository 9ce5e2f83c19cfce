#pragma once
// The error every CUDA failure becomes, on the GPU and in the emulator alike. It carries CUDA's
// error code and message ("invalid argument (cudaErrorInvalidValue)") and needs no CUDA headers.
#include <stdexcept>
#include <string>

namespace gpulab {

class CudaError : public std::runtime_error {
 public:
  CudaError(int code, std::string cuda_message, const std::string& what)
      : std::runtime_error(what), code_(code), cuda_message_(std::move(cuda_message)) {}
  int code() const { return code_; }  // CUDA's numeric code (cudaError_t)
  const std::string& cuda_message() const { return cuda_message_; }

 private:
  int code_;
  std::string cuda_message_;
};

// What every check throws, the runtime's and each library's (cuBLAS, cuDNN, cuFFT, NCCL): the
// library's code and message, and "call failed at file:line: message".
[[noreturn]] inline void throw_library_error(int code, const std::string& message, const char* call, const char* file,
                                             int line) {
  throw CudaError(code, message,
                  std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + message);
}

}  // namespace gpulab
