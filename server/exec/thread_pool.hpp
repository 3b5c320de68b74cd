// herd::exec::ThreadPool — the sim::Executor the server and the benchmark lend their World.
//
// A fixed set of threads that sleep until parallel_for hands them a loop; the caller works too.
// Ranges are claimed from an atomic counter (a fast worker takes more of them), and
// parallel_for returns only once every worker has finished with the task.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "sim/executor.hpp"

namespace herd::exec {

class ThreadPool final : public sim::Executor {
 public:
  // threads: workers in all, the calling thread included; at least 1 (then no thread is started).
  explicit ThreadPool(std::size_t threads);
  ~ThreadPool() override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  std::size_t workers() const override { return threads_.size() + 1; }
  void parallel_for(std::size_t n, const Task& task) override;

 private:
  void worker_loop(std::size_t worker);
  void run_ranges(std::size_t worker);

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::uint64_t generation_ = 0;  // bumped by each parallel_for
  bool stop_ = false;
  std::size_t busy_ = 0;          // started threads still in the current task
  const Task* task_ = nullptr;
  std::size_t n_ = 0, range_ = 1;
  std::atomic<std::size_t> next_{0};
};

}  // namespace herd::exec
