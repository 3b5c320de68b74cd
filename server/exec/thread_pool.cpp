#include "exec/thread_pool.hpp"

#include <pthread.h>

#include <algorithm>
#include <string>

namespace herd::exec {

ThreadPool::ThreadPool(std::size_t threads, std::string_view name) {
  for (std::size_t w = 1; w < std::max<std::size_t>(threads, 1); ++w) {
    threads_.emplace_back([this, w] { worker_loop(w); });
    // Named from here, before the constructor returns, not by the thread when it first runs.
    if (!name.empty()) name_thread(threads_.back(), std::string(name) + "-" + std::to_string(w));
  }
}

void name_thread(std::thread& thread, const std::string& name) {
  // Linux takes at most 15 characters and refuses longer names.
  pthread_setname_np(thread.native_handle(), name.substr(0, 15).c_str());
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::parallel_for(std::size_t n, const Task& task) {
  if (n == 0) return;
  if (threads_.empty()) {
    task(0, n, 0);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    task_ = &task;
    n_ = n;
    // About eight ranges per worker: small enough to even out uneven agents, large enough that
    // claiming them costs nothing.
    range_ = std::max<std::size_t>(1, n / (workers() * 8));
    next_.store(0, std::memory_order_relaxed);
    open_ = true;
    ++generation_;
  }
  wake_.notify_all();
  run_ranges(0);
  // Every range is claimed. Wait only for the workers that joined in: one that has not woken yet
  // (its core busy elsewhere) is not waited for, and skips this task when it wakes.
  std::unique_lock lock(mutex_);
  open_ = false;
  done_.wait(lock, [this] { return active_ == 0; });
  task_ = nullptr;
}

void ThreadPool::run_ranges(std::size_t worker) {
  for (;;) {
    const std::size_t begin = next_.fetch_add(range_, std::memory_order_relaxed);
    if (begin >= n_) return;
    (*task_)(begin, std::min(begin + range_, n_), worker);
  }
}

void ThreadPool::worker_loop(std::size_t worker) {
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (!open_) continue;  // woke after the caller finished the task alone
      ++active_;
    }
    run_ranges(worker);
    std::lock_guard lock(mutex_);
    if (--active_ == 0) done_.notify_one();
  }
}

}  // namespace herd::exec
