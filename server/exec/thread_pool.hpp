// herd::exec::ThreadPool — the sim::Executor the server and the benchmark lend their World.
//
// A fixed set of threads that sleep until parallel_for hands them a loop; the caller works too.
// Ranges are claimed from an atomic counter (a fast worker takes more of them), and
// parallel_for returns once every range is done: it waits for the workers that took part, not for
// one that has not woken yet (on a busy machine that wait was a scheduler's time slice per loop).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "herd/sim/executor.hpp"

namespace herd::exec {

// Names `thread` (at most 15 characters are kept), from the thread that started it: the name is
// there before anyone can look for it.
void name_thread(std::thread& thread, const std::string& name);

class ThreadPool final : public sim::Executor {
 public:
  // threads: workers in all, the calling thread included; at least 1 (then no thread is started).
  // name: the started threads are named name-1, name-2, ... (as top -H and perf show them).
  explicit ThreadPool(std::size_t threads, std::string_view name = {});
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
  bool open_ = false;       // the current task still takes workers
  std::size_t active_ = 0;  // workers inside the current task
  const Task* task_ = nullptr;
  std::size_t n_ = 0, range_ = 1;
  std::atomic<std::size_t> next_{0};
};

}  // namespace herd::exec
