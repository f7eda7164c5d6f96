// host_emulation.h -- run the CUDA C++ kernels of this folder on the CPU.
//
// The host launcher (backends/privateuseone/launchers.py) compiles a kernel source with the system C++
// compiler and `-include host_emulation.h`; this header supplies what the kernels use from CUDA:
//
//   threadIdx / blockIdx / blockDim / gridDim, warpSize   thread-local variables set by the scheduler
//   __global__ __device__ __host__ __forceinline__ ...    attributes that vanish (or map to GCC's)
//   __shared__                                            `thread_local`: one copy per worker OS thread, and a
//                                                         worker runs one block at a time, so one copy per block
//   __syncthreads()                                       a barrier between the fibers of a block; a thread that
//                                                         exits while others wait (or waits at another call
//                                                         site) is reported as an error, never a hang
//   __restrict__ (GCC keyword), __ldg, min/max, __umulhi, atomicAdd, __trap
//   __half with __half2float, __float2half(_rn), __double2half, __half_as_ushort, __ushort_as_half
//
// Execution model: a launch distributes blocks over worker OS threads (std::thread), one block at a time per
// worker.  Inside a block every CUDA thread is a fiber with its own stack (a hand-rolled context switch on
// x86-64, ucontext elsewhere or with -DOPENREG_EMU_UCONTEXT); fibers run in thread order until they finish or
// reach __syncthreads(), and the barrier releases when every fiber of the block waits at the same call.
// Kernels whose source never mentions __syncthreads (the launcher checks) run their threads as a plain loop,
// which is much cheaper; calling the barrier in that mode is reported as an error.
//
// Not emulated: warp intrinsics (__shfl_sync, __ballot_sync ...), dynamic `extern __shared__` memory,
// cooperative groups, textures.  Subnormals are not flushed (CuPy compiles with -ftz=true).
#pragma once
#ifndef OPENREG_HOST_EMULATION
#define OPENREG_HOST_EMULATION 1

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#if !defined(__x86_64__) && !defined(OPENREG_EMU_UCONTEXT)
#define OPENREG_EMU_UCONTEXT 1
#endif
#ifdef OPENREG_EMU_UCONTEXT
#include <ucontext.h>
#endif

// ---------------------------------------------------------------------------------------------------------
// Language surface
// ---------------------------------------------------------------------------------------------------------
#ifdef OPENREG_SCAN_KERNELS
#define __global__ __openreg_global__  // preprocess-only pass: lets the launcher find every kernel name
#else
#define __global__
#endif
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ thread_local
#define __constant__ static const

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};
typedef dim3 uint3;

inline thread_local uint3 threadIdx(0, 0, 0);
inline thread_local uint3 blockIdx(0, 0, 0);
inline thread_local dim3 blockDim(1, 1, 1);
inline thread_local dim3 gridDim(1, 1, 1);
constexpr int warpSize = 32;

template <typename T>
__forceinline__ T min(T a, T b) { return b < a ? b : a; }
template <typename T>
__forceinline__ T max(T a, T b) { return a < b ? b : a; }
template <typename T>
__forceinline__ T __ldg(const T* p) { return *p; }
__forceinline__ unsigned int __umulhi(unsigned int a, unsigned int b) {
  return static_cast<unsigned int>((static_cast<uint64_t>(a) * b) >> 32);
}
__forceinline__ unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
template <typename T>
inline T atomicAdd(T* address, T value) {
  if constexpr (std::is_integral<T>::value) {
    return __atomic_fetch_add(address, value, __ATOMIC_RELAXED);
  } else {
    T old, desired;
    __atomic_load(address, &old, __ATOMIC_RELAXED);
    do {
      desired = old + value;
    } while (!__atomic_compare_exchange(address, &old, &desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return old;
  }
}

// ---------------------------------------------------------------------------------------------------------
// __half: IEEE binary16 storage with correctly rounded (round-to-nearest-even) conversions
// ---------------------------------------------------------------------------------------------------------
struct __align__(2) __half {
  unsigned short __x;
};

namespace openreg_emu {
inline unsigned short double_to_half_bits(double v) {
  unsigned short sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v)) return static_cast<unsigned short>(sign | 0x7e00);
  double a = std::fabs(v);
  if (a >= 65520.0) return static_cast<unsigned short>(sign | 0x7c00);  // rounds to infinity
  if (a < 6.103515625e-05) {                                            // below 2^-14: subnormal or zero
    return static_cast<unsigned short>(sign | static_cast<unsigned short>(std::nearbyint(std::ldexp(a, 24))));
  }
  int e;
  std::frexp(a, &e);                                              // a = f * 2^e, f in [0.5, 1)
  double q = std::nearbyint(std::ldexp(a, 11 - e));                // 11 significant bits, in [1024, 2048]
  if (q == 2048.0) { q = 1024.0; ++e; }
  if (e + 14 > 30) return static_cast<unsigned short>(sign | 0x7c00);
  return static_cast<unsigned short>(sign | ((e + 14) << 10) | (static_cast<unsigned>(q) - 1024u));
}
inline float half_bits_to_float(unsigned short h) {
  float sign = (h & 0x8000) ? -1.0f : 1.0f;
  unsigned exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0x1f) return mant ? std::nanf("") : sign * INFINITY;
  if (exp == 0) return sign * std::ldexp(static_cast<float>(mant), -24);
  return sign * std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
}
}  // namespace openreg_emu

__forceinline__ float __half2float(__half h) { return openreg_emu::half_bits_to_float(h.__x); }
__forceinline__ __half __float2half_rn(float f) { return __half{openreg_emu::double_to_half_bits(f)}; }
__forceinline__ __half __float2half(float f) { return __float2half_rn(f); }
__forceinline__ __half __double2half(double d) { return __half{openreg_emu::double_to_half_bits(d)}; }
__forceinline__ unsigned short __half_as_ushort(__half h) { return h.__x; }
__forceinline__ __half __ushort_as_half(unsigned short x) { return __half{x}; }

// ---------------------------------------------------------------------------------------------------------
// Fibers and the block scheduler
// ---------------------------------------------------------------------------------------------------------
namespace openreg_emu {

struct LaunchParams {  // mirrored by ctypes in launchers.py
  uint32_t grid[3];
  uint32_t block[3];
  uint64_t shared_mem;
  int32_t use_fibers;
  int32_t workers;
};

typedef void (*InvokeFn)(void*);
enum class FiberState : int { Ready, AtBarrier, Done };

struct Fiber {
  void* sp = nullptr;  // saved stack pointer (hand-rolled switch)
#ifdef OPENREG_EMU_UCONTEXT
  ucontext_t uc;
#endif
  char* stack = nullptr;  // mapping base; the lowest page is a guard page
  size_t stack_bytes = 0;
  uint3 tid;
  FiberState state = FiberState::Ready;
  const char* bar_file = "";
  int bar_line = 0;
  int bar_site = 0;  // __COUNTER__ of the barrier call: tells apart two calls on one line
};

struct Worker {
  InvokeFn invoke = nullptr;
  void* call = nullptr;
  const char* kernel = "";
  std::vector<Fiber*> fibers;
  Fiber* current = nullptr;  // null while the scheduler itself runs (and always in loop mode)
  void* sched_sp = nullptr;
#ifdef OPENREG_EMU_UCONTEXT
  ucontext_t sched_uc;
#endif
  std::string fiber_error;  // an exception escaped the kernel inside a fiber
};

inline thread_local Worker* tls_worker = nullptr;

struct BarrierInLoopMode {
  const char* file;
  int line;
};
struct KernelTrap {};

inline size_t fiber_stack_bytes() {
  static const size_t bytes = [] {
    const char* env = getenv("OPENREG_EMU_STACK_KB");
    long kb = env ? atol(env) : 256;
    return static_cast<size_t>(kb < 16 ? 16 : kb) * 1024;
  }();
  return bytes;
}

// Stacks are kept for reuse across blocks and launches (mmap'ing 256 stacks per block would dominate).
inline std::mutex& stack_pool_mutex() {
  static std::mutex* m = new std::mutex;
  return *m;
}
inline std::vector<Fiber*>& stack_pool() {
  static std::vector<Fiber*>* pool = new std::vector<Fiber*>;
  return *pool;
}
inline Fiber* acquire_fiber() {
  {
    std::lock_guard<std::mutex> lock(stack_pool_mutex());
    if (!stack_pool().empty()) {
      Fiber* f = stack_pool().back();
      stack_pool().pop_back();
      return f;
    }
  }
  Fiber* f = new Fiber;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  f->stack_bytes = fiber_stack_bytes() + page;
  void* mem = mmap(nullptr, f->stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    delete f;
    return nullptr;
  }
  mprotect(mem, page, PROT_NONE);  // guard page: a stack overflow faults instead of corrupting memory
  f->stack = static_cast<char*>(mem);
  return f;
}
inline void release_fibers(std::vector<Fiber*>& fibers) {
  std::lock_guard<std::mutex> lock(stack_pool_mutex());
  for (Fiber* f : fibers) stack_pool().push_back(f);
  fibers.clear();
}

inline void fiber_body(Fiber* f) {
  Worker* w = tls_worker;
  try {
    w->invoke(w->call);
  } catch (const KernelTrap&) {
    w->fiber_error = "the kernel called __trap()";
  } catch (const std::exception& e) {
    w->fiber_error = std::string("C++ exception in the kernel: ") + e.what();
  } catch (...) {
    w->fiber_error = "unknown C++ exception in the kernel";
  }
  f->state = FiberState::Done;
}

}  // namespace openreg_emu

#ifdef OPENREG_EMU_UCONTEXT
namespace openreg_emu {
inline void ucontext_entry() {
  Fiber* f = tls_worker->current;
  fiber_body(f);
  swapcontext(&f->uc, &tls_worker->sched_uc);  // never resumed
}
inline bool prepare_fiber(Fiber* f) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  if (getcontext(&f->uc) != 0) return false;
  f->uc.uc_stack.ss_sp = f->stack + page;
  f->uc.uc_stack.ss_size = f->stack_bytes - page;
  f->uc.uc_link = nullptr;
  makecontext(&f->uc, ucontext_entry, 0);
  return true;
}
inline void enter_fiber(Worker* w, Fiber* f) { swapcontext(&w->sched_uc, &f->uc); }
inline void leave_fiber(Worker* w, Fiber* f) { swapcontext(&f->uc, &w->sched_uc); }
}  // namespace openreg_emu
#else
// x86-64 System V: save the callee-saved registers, MXCSR and the x87 control word on the current stack,
// store the stack pointer, load the other one and pop the same layout.  A new fiber's stack is prepared so
// that the first switch "returns" into openreg_emu_fiber_start with the Fiber* in r12.
extern "C" __attribute__((visibility("hidden"))) void openreg_emu_switch(void** save_sp, void* load_sp);
extern "C" __attribute__((visibility("hidden"))) void openreg_emu_fiber_start();
extern "C" __attribute__((visibility("hidden"), used)) void openreg_emu_fiber_main(openreg_emu::Fiber* f) {
  openreg_emu::fiber_body(f);
  openreg_emu::Worker* w = openreg_emu::tls_worker;
  void* dead_sp;
  openreg_emu_switch(&dead_sp, w->sched_sp);  // never resumed
  __builtin_trap();
}
asm(R"(
    .text
    .p2align 4
    .globl openreg_emu_switch
    .hidden openreg_emu_switch
    .type openreg_emu_switch, @function
openreg_emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size openreg_emu_switch, .-openreg_emu_switch

    .p2align 4
    .globl openreg_emu_fiber_start
    .hidden openreg_emu_fiber_start
    .type openreg_emu_fiber_start, @function
openreg_emu_fiber_start:
    movq %r12, %rdi
    call openreg_emu_fiber_main
    ud2
    .size openreg_emu_fiber_start, .-openreg_emu_fiber_start
)");
namespace openreg_emu {
inline bool prepare_fiber(Fiber* f) {
  uintptr_t top = reinterpret_cast<uintptr_t>(f->stack + f->stack_bytes) & ~static_cast<uintptr_t>(15);
  uint64_t* sp = reinterpret_cast<uint64_t*>(top);
  uint32_t mxcsr;
  uint16_t fcw;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fcw));
  sp[-1] = reinterpret_cast<uint64_t>(&openreg_emu_fiber_start);  // return address of the first switch
  sp[-2] = 0;                                                       // rbp
  sp[-3] = 0;                                                       // rbx
  sp[-4] = reinterpret_cast<uint64_t>(f);                           // r12: argument of fiber_start
  sp[-5] = sp[-6] = sp[-7] = 0;                                     // r13 r14 r15
  sp[-8] = static_cast<uint64_t>(mxcsr) | (static_cast<uint64_t>(fcw) << 32);
  f->sp = &sp[-8];
  return true;
}
inline void enter_fiber(Worker* w, Fiber* f) { openreg_emu_switch(&w->sched_sp, f->sp); }
inline void leave_fiber(Worker* w, Fiber* f) { openreg_emu_switch(&f->sp, w->sched_sp); }
}  // namespace openreg_emu
#endif

namespace openreg_emu {

inline void syncthreads_at(const char* file, int line, int site) {
  Worker* w = tls_worker;
  if (w == nullptr || w->current == nullptr) {
    if (blockDim.x * blockDim.y * blockDim.z == 1) return;  // a one-thread block needs no barrier
    throw BarrierInLoopMode{file, line};
  }
  Fiber* f = w->current;
  f->state = FiberState::AtBarrier;
  f->bar_file = file;
  f->bar_line = line;
  f->bar_site = site;
  leave_fiber(w, f);
}

[[noreturn]] inline void trap() { throw KernelTrap{}; }

inline std::string fmt_idx(const uint3& i) {
  return "(" + std::to_string(i.x) + "," + std::to_string(i.y) + "," + std::to_string(i.z) + ")";
}
inline std::string fmt_site(const Fiber* f) { return std::string(f->bar_file) + ":" + std::to_string(f->bar_line); }

inline bool run_block_loop(Worker& w, std::string& err) {
  const dim3 b = blockDim;
  try {
    for (unsigned z = 0; z < b.z; ++z)
      for (unsigned y = 0; y < b.y; ++y)
        for (unsigned x = 0; x < b.x; ++x) {
          threadIdx = uint3(x, y, z);
          w.invoke(w.call);
        }
  } catch (const BarrierInLoopMode& e) {
    err = std::string("kernel '") + w.kernel + "' called __syncthreads() at " + e.file + ":" +
          std::to_string(e.line) + " but was launched without fibers (its source was not seen to use the barrier)";
    return false;
  } catch (const KernelTrap&) {
    err = std::string("kernel '") + w.kernel + "' called __trap() in block " + fmt_idx(blockIdx) + ", thread " +
          fmt_idx(threadIdx);
    return false;
  } catch (const std::exception& e) {
    err = std::string("kernel '") + w.kernel + "' raised a C++ exception: " + e.what();
    return false;
  }
  return true;
}

inline bool run_block_fibers(Worker& w, std::string& err) {
  const dim3 b = blockDim;
  const size_t n = static_cast<size_t>(b.x) * b.y * b.z;
  while (w.fibers.size() < n) {
    Fiber* f = acquire_fiber();
    if (f == nullptr) {
      err = "could not allocate fiber stacks (mmap failed); lower OPENREG_EMU_STACK_KB or the block size";
      return false;
    }
    w.fibers.push_back(f);
  }
  for (size_t i = 0; i < n; ++i) {
    Fiber* f = w.fibers[i];
    f->tid = uint3(static_cast<unsigned>(i % b.x), static_cast<unsigned>((i / b.x) % b.y),
                   static_cast<unsigned>(i / (static_cast<size_t>(b.x) * b.y)));
    f->state = FiberState::Ready;
    if (!prepare_fiber(f)) {
      err = "could not prepare a fiber context";
      return false;
    }
  }
  for (;;) {
    for (size_t i = 0; i < n; ++i) {
      Fiber* f = w.fibers[i];
      if (f->state != FiberState::Ready) continue;
      w.current = f;
      threadIdx = f->tid;
      enter_fiber(&w, f);
      w.current = nullptr;
      if (!w.fiber_error.empty()) {
        err = std::string("kernel '") + w.kernel + "', block " + fmt_idx(blockIdx) + ", thread " + fmt_idx(f->tid) +
              ": " + w.fiber_error;
        return false;
      }
    }
    const Fiber* waiting = nullptr;
    const Fiber* exited = nullptr;
    for (size_t i = 0; i < n; ++i) {
      const Fiber* f = w.fibers[i];
      if (f->state == FiberState::AtBarrier) {
        if (waiting == nullptr) waiting = f;
        if (f->bar_site != waiting->bar_site || f->bar_line != waiting->bar_line ||
            strcmp(f->bar_file, waiting->bar_file) != 0) {
          err = std::string("__syncthreads() divergence in kernel '") + w.kernel + "', block " + fmt_idx(blockIdx) +
                ": thread " + fmt_idx(waiting->tid) + " waits at " + fmt_site(waiting) + " but thread " +
                fmt_idx(f->tid) + " waits at " + fmt_site(f) +
                (f->bar_line == waiting->bar_line ? " (another __syncthreads() call on the same line)" : "") +
                " (every thread of a block must reach the same barrier)";
          return false;
        }
      } else if (exited == nullptr) {
        exited = f;
      }
    }
    if (waiting == nullptr) return true;  // every thread finished
    if (exited != nullptr) {
      err = std::string("__syncthreads() divergence in kernel '") + w.kernel + "', block " + fmt_idx(blockIdx) +
            ": thread " + fmt_idx(exited->tid) + " exited without reaching the __syncthreads() at " +
            fmt_site(waiting) + " where thread " + fmt_idx(waiting->tid) +
            " waits (on a GPU this hangs or corrupts shared memory)";
      return false;
    }
    for (size_t i = 0; i < n; ++i) w.fibers[i]->state = FiberState::Ready;
  }
}

inline int run_grid(const char* kernel, InvokeFn invoke, void* call, const LaunchParams& p, char* err,
                    size_t errlen) {
  auto fail = [&](const std::string& msg) {
    if (errlen) {
      snprintf(err, errlen, "%s", msg.c_str());
    }
    return 1;
  };
  const uint64_t threads = static_cast<uint64_t>(p.block[0]) * p.block[1] * p.block[2];
  const uint64_t blocks = static_cast<uint64_t>(p.grid[0]) * p.grid[1] * p.grid[2];
  if (threads == 0 || threads > 1024 || p.block[2] > 64 || blocks == 0 || p.grid[1] > 65535 ||
      p.grid[2] > 65535 || p.grid[0] > 2147483647u) {
    return fail(std::string("invalid configuration argument for kernel '") + kernel + "': grid (" +
                std::to_string(p.grid[0]) + "," + std::to_string(p.grid[1]) + "," + std::to_string(p.grid[2]) +
                "), block (" + std::to_string(p.block[0]) + "," + std::to_string(p.block[1]) + "," +
                std::to_string(p.block[2]) + ")");
  }
  if (p.shared_mem != 0) {
    return fail(std::string("kernel '") + kernel +
                "': dynamic shared memory is not supported by the host emulation; use static __shared__ arrays");
  }
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex err_mutex;
  std::string first_error;
  auto work = [&]() {
    Worker w;
    w.invoke = invoke;
    w.call = call;
    w.kernel = kernel;
    tls_worker = &w;
    gridDim = dim3(p.grid[0], p.grid[1], p.grid[2]);
    blockDim = dim3(p.block[0], p.block[1], p.block[2]);
    for (;;) {
      if (failed.load(std::memory_order_relaxed)) break;
      const uint64_t id = next.fetch_add(1, std::memory_order_relaxed);
      if (id >= blocks) break;
      blockIdx = uint3(static_cast<unsigned>(id % p.grid[0]), static_cast<unsigned>((id / p.grid[0]) % p.grid[1]),
                       static_cast<unsigned>(id / (static_cast<uint64_t>(p.grid[0]) * p.grid[1])));
      std::string msg;
      const bool ok = p.use_fibers ? run_block_fibers(w, msg) : run_block_loop(w, msg);
      if (!ok) {
        std::lock_guard<std::mutex> lock(err_mutex);
        if (first_error.empty()) first_error = msg;
        failed = true;
      }
    }
    release_fibers(w.fibers);
    tls_worker = nullptr;
  };
  uint64_t nworkers = p.workers > 0 ? static_cast<uint64_t>(p.workers) : 1;
  if (nworkers > blocks) nworkers = blocks;
  std::vector<std::thread> pool;
  try {
    for (uint64_t i = 1; i < nworkers; ++i) pool.emplace_back(work);
  } catch (const std::exception&) {
    // fewer workers than asked for: the ones that started (and this thread) still cover every block
  }
  work();
  for (auto& t : pool) t.join();
  if (failed) return fail(first_error);
  return 0;
}

// Calls `fn` with its arguments unpacked from `args` (one pointer per parameter, as cuLaunchKernel takes).
template <typename... A>
struct KernelCall {
  void (*fn)(A...);
  void** args;
  template <size_t... I>
  void call(std::index_sequence<I...>) {
    fn(*static_cast<typename std::decay<A>::type*>(args[I])...);
  }
  static void run(void* self) { static_cast<KernelCall*>(self)->call(std::index_sequence_for<A...>{}); }
};

template <typename... A>
int launch(const char* kernel, void (*fn)(A...), const LaunchParams* p, void** args, char* err, size_t errlen) {
  KernelCall<A...> call{fn, args};
  return run_grid(kernel, &KernelCall<A...>::run, &call, *p, err, errlen);
}

// "8,8,272,": the byte size of every parameter, so the launcher can check its packing before a launch.
template <typename... A>
const char* signature(void (*)(A...)) {
  static const std::string sizes = [] {
    std::string r;
    ((r += std::to_string(sizeof(typename std::decay<A>::type)) + ","), ...);
    return r;
  }();
  return sizes.c_str();
}

}  // namespace openreg_emu

#define __syncthreads() ::openreg_emu::syncthreads_at(__FILE__, __LINE__, __COUNTER__)
#define __trap() ::openreg_emu::trap()

#endif  // OPENREG_HOST_EMULATION
