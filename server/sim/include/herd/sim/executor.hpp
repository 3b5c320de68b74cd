// herd::sim::Executor — how a World runs a loop on several threads without owning any.
//
// The sim has no threads of its own (it is standard C++ with no I/O); the host that has them (the
// server, the benchmark) lends the world an Executor, as Box2D v3's b2WorldDef lends
// enqueueTask/finishTask. A stage that computes into per-agent scratch hands its loop to
// parallel_for; each index reads the state as it was when the stage began and writes only its own
// slot, so which worker runs which index cannot change a bit of the result: the same state hash on
// 1 thread or 8 (tests/exec).
#pragma once

#include <cstddef>
#include <functional>

namespace herd::sim {

class Executor {
 public:
  // task(begin, end, worker): indices [begin, end), run by worker in [0, workers()).
  using Task = std::function<void(std::size_t begin, std::size_t end, std::size_t worker)>;

  virtual ~Executor() = default;
  // How many workers may run a task at once, including the calling thread: at least 1.
  virtual std::size_t workers() const = 0;
  // Calls task over [0, n), split into ranges on the workers, and returns when all are done.
  // The calling thread takes part.
  virtual void parallel_for(std::size_t n, const Task& task) = 0;
};

}  // namespace herd::sim
