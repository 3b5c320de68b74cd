// herd::app::TrajectoryDb — the trajectory database: a SQLite file in WAL mode with the schema
// docs/operations.md describes (meta, states, worlds, frames, trajectory, measurement_lines,
// measurement_areas), written through prepared statements, one transaction per batch of frames.
//
// WAL with synchronous=NORMAL: a commit is in the file's write-ahead log when it returns, so a
// process that is killed leaves every committed batch (the next open replays the log); only a
// power cut may lose the last ones. Readers (a researcher's notebook, the Python package) may
// open the file while the server writes it.
//
// One thread at a time: the recorder opens it on the thread that starts the run, then hands it to
// its writer thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "app/trajectory_frame.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace herd::app {

// The schema's version (meta `schema_version`): bumped by any change a reader must know of.
inline constexpr int kTrajectorySchemaVersion = 1;
// meta `format`: what marks a file as a herd trajectory database.
inline constexpr const char* kTrajectoryFormat = "herd-trajectories";

class TrajectoryDb {
 public:
  using Meta = std::vector<std::pair<std::string, std::string>>;

  // A new database at `path` with the schema and these meta rows. An existing herd trajectory
  // database there is replaced (with its -wal and -shm files), as a new --record replaces the
  // old recording; any other file there is refused, so a mistyped path never overwrites a
  // document. A database, or a sentence saying why not.
  static std::variant<TrajectoryDb, std::string> create(const std::string& path, const Meta& meta);

  // The herd trajectory database at `path`, to write more frames after the last (a server that
  // resumed from its checkpoint); made as create() makes it, with `meta`, when there is no file.
  static std::variant<TrajectoryDb, std::string> append(const std::string& path, const Meta& meta);

  TrajectoryDb(TrajectoryDb&&) noexcept;
  TrajectoryDb& operator=(TrajectoryDb&&) noexcept;
  ~TrajectoryDb();

  // Where the file's numbering goes on: one past its last frame and its last world (0 and 0 for
  // a new file); and the frames dropped by the runs that wrote it before.
  std::uint64_t next_frame() const { return next_frame_; }
  std::uint32_t next_world() const { return next_world_; }
  std::uint64_t frames_dropped_before() const { return dropped_before_; }

  // One transaction: the worlds' rows, then each frame's row and its agents, lines and areas,
  // and the meta rows given. Empty, or why it failed (then nothing of it was written).
  std::string write(std::span<const WorldRow> worlds,
                    std::span<const TrajectoryFrame* const> frames, const Meta& meta);

  // Sets meta rows in a transaction of their own (the closing counts); empty or why not.
  std::string set_meta(const Meta& meta);

  // Finalises the statements and closes the file (checkpointing the log into it). Idempotent.
  void close();

 private:
  struct Statements;
  TrajectoryDb();
  static std::variant<TrajectoryDb, std::string> open_file(const std::string& path, bool create,
                                                           const Meta& meta);
  std::string prepare();
  std::string exec(const char* sql);
  std::string insert_meta(const Meta& meta);
  std::string insert_world(const WorldRow& w);
  std::string insert_frame(const TrajectoryFrame& f);
  std::string error(const std::string& doing) const;

  std::string path_;
  sqlite3* db_ = nullptr;
  std::unique_ptr<Statements> statements_;
  std::uint64_t next_frame_ = 0;
  std::uint32_t next_world_ = 0;
  std::uint64_t dropped_before_ = 0;
};

}  // namespace herd::app
