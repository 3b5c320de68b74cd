#include "app/trajectory_db.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "protocol/messages.hpp"

namespace herd::app {
namespace {

// The schema (docs/operations.md, "Trajectories"). Rows are written in (frame, id) order, so the
// WITHOUT ROWID tables, clustered on that key, grow at their end and read back frame by frame
// without a separate index.
constexpr const char* kSchema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE states(state INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE worlds(
  world INTEGER PRIMARY KEY, began TEXT NOT NULL, scenario TEXT NOT NULL, seed TEXT NOT NULL, tick INTEGER NOT NULL, tick_rate REAL NOT NULL,
  frame_rate REAL NOT NULL, width REAL NOT NULL, height REAL NOT NULL);
CREATE TABLE frames(
  frame INTEGER PRIMARY KEY, world INTEGER NOT NULL, tick INTEGER NOT NULL, time REAL NOT NULL,
  agents INTEGER NOT NULL);
CREATE TABLE trajectory(
  frame INTEGER NOT NULL, id INTEGER NOT NULL, x REAL NOT NULL, y REAL NOT NULL,
  vx REAL NOT NULL, vy REAL NOT NULL, state INTEGER NOT NULL, grp INTEGER NOT NULL,
  PRIMARY KEY(frame, id)) WITHOUT ROWID;
CREATE TABLE measurement_lines(
  frame INTEGER NOT NULL, id INTEGER NOT NULL, forward INTEGER NOT NULL, backward INTEGER NOT NULL,
  PRIMARY KEY(frame, id)) WITHOUT ROWID;
CREATE TABLE measurement_areas(
  frame INTEGER NOT NULL, id INTEGER NOT NULL, count INTEGER NOT NULL, density REAL NOT NULL,
  mean_speed REAL, PRIMARY KEY(frame, id)) WITHOUT ROWID;
)sql";

struct StatementFinaliser {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Statement = std::unique_ptr<sqlite3_stmt, StatementFinaliser>;

// Binds an unsigned count as SQLite's signed 64-bit integer (ticks and frames stay far below
// 2^63).
void bind_u64(sqlite3_stmt* s, int column, std::uint64_t v) {
  sqlite3_bind_int64(s, column, static_cast<sqlite3_int64>(v));
}

// Runs a statement that returns nothing, and readies it for the next row.
bool run(sqlite3_stmt* s) {
  const int rc = sqlite3_step(s);
  sqlite3_reset(s);
  return rc == SQLITE_DONE;
}

// The first column of the first row of `sql`, as text; nullopt when there is none or it fails.
std::optional<std::string> query_text(sqlite3* db, const char* sql) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &raw, nullptr) != SQLITE_OK) return std::nullopt;
  const Statement s(raw);
  if (sqlite3_step(raw) != SQLITE_ROW || sqlite3_column_type(raw, 0) == SQLITE_NULL)
    return std::nullopt;
  return std::string(reinterpret_cast<const char*>(sqlite3_column_text(raw, 0)));
}

// SQLite's message, and the system's when the OS refused (a missing directory, no permission).
std::string sqlite_message(sqlite3* db) {
  std::string why = db ? sqlite3_errmsg(db) : "out of memory";
  if (const int e = db ? sqlite3_system_errno(db) : 0; e != 0)
    why += std::string(" (") + std::strerror(e) + ")";
  return why;
}

// What is at `path` when it is not a herd trajectory database of this schema: a sentence, or
// empty when it is one.
std::string check_is_ours(sqlite3* db, const std::string& path) {
  const auto format = query_text(db, "SELECT value FROM meta WHERE key = 'format'");
  if (!format || *format != kTrajectoryFormat)
    return path + " exists and is not a herd trajectory database";
  const auto version = query_text(db, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (!version || *version != std::to_string(kTrajectorySchemaVersion))
    return path + " is a herd trajectory database of schema version " + version.value_or("?") +
           "; this server writes version " + std::to_string(kTrajectorySchemaVersion);
  return {};
}

}  // namespace

// Agents are inserted this many to a statement (the rest one by one): one step of a statement per
// 64 rows instead of one per row took the writer's CPU for 10,000 agents at 60 frames a second
// from 3.5-4.6 s to 2.2-2.7 s over 200 frames (headless crowd_10k).
constexpr std::size_t kAgentsPerInsert = 64;
constexpr int kAgentColumns = 8;

// INSERT INTO trajectory VALUES(?, ...), ... for `rows` rows.
std::string agent_insert(std::size_t rows) {
  std::string sql = "INSERT INTO trajectory VALUES";
  for (std::size_t r = 0; r < rows; ++r) sql += r == 0 ? "(?,?,?,?,?,?,?,?)" : ",(?,?,?,?,?,?,?,?)";
  return sql;
}

struct TrajectoryDb::Statements {
  Statement meta, world, frame, agent, agents, line, area;
};

TrajectoryDb::TrajectoryDb() = default;
TrajectoryDb::TrajectoryDb(TrajectoryDb&& o) noexcept { *this = std::move(o); }
TrajectoryDb& TrajectoryDb::operator=(TrajectoryDb&& o) noexcept {
  if (this == &o) return *this;
  close();
  path_ = std::move(o.path_);
  db_ = std::exchange(o.db_, nullptr);
  statements_ = std::move(o.statements_);
  next_frame_ = o.next_frame_;
  next_world_ = o.next_world_;
  dropped_before_ = o.dropped_before_;
  return *this;
}
TrajectoryDb::~TrajectoryDb() { close(); }

std::variant<TrajectoryDb, std::string> TrajectoryDb::create(const std::string& path,
                                                             const Meta& meta) {
  return open_file(path, true, meta);
}

std::variant<TrajectoryDb, std::string> TrajectoryDb::append(const std::string& path,
                                                             const Meta& meta) {
  return open_file(path, false, meta);
}

std::variant<TrajectoryDb, std::string> TrajectoryDb::open_file(const std::string& path,
                                                                bool create, const Meta& meta) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  bool exists = fs::exists(status);
  if (exists && !fs::is_regular_file(status))
    return path + " exists and is not a regular file (a link, a directory, a device)";
  const bool empty = exists && fs::file_size(path, ec) == 0;  // made by hand, say: taken as new
  if (exists && !empty) {
    // Looked at before anything is changed: only a herd trajectory database is replaced or
    // written after its last frame.
    sqlite3* raw = nullptr;
    const int rc =
        sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, nullptr);
    std::string why = rc == SQLITE_OK ? check_is_ours(raw, path)
                                      : "cannot open " + path + ": " + sqlite_message(raw);
    sqlite3_close_v2(raw);
    if (!why.empty()) return why;
  }
  if (exists && (create || empty)) {
    // Replaced whole: the old file's write-ahead log and shared memory go with it.
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      if (::unlink((path + suffix).c_str()) != 0 && errno != ENOENT)
        return "cannot replace " + path + suffix + ": " + std::strerror(errno);
    exists = false;
  }

  TrajectoryDb db;
  db.path_ = path;
  const int rc =
      sqlite3_open_v2(path.c_str(), &db.db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, nullptr);
  if (rc != SQLITE_OK) return "cannot open " + path + ": " + sqlite_message(db.db_);
  sqlite3_busy_timeout(db.db_, 5000);  // a reader checkpointing the log holds us up briefly
  const auto mode = query_text(db.db_, "PRAGMA journal_mode=WAL");
  if (!mode || *mode != "wal")
    return "cannot write " + path + " in WAL mode: " + sqlite_message(db.db_);
  if (std::string why = db.exec("PRAGMA synchronous=NORMAL"); !why.empty()) return why;
  if (!exists) {
    if (std::string why = db.exec("BEGIN IMMEDIATE"); !why.empty()) return why;
    if (std::string why = db.exec(kSchema); !why.empty()) return why;
    if (std::string why = db.prepare(); !why.empty()) return why;
    Meta rows = meta;
    rows.emplace_back("format", kTrajectoryFormat);
    rows.emplace_back("schema_version", std::to_string(kTrajectorySchemaVersion));
    if (std::string why = db.insert_meta(rows); !why.empty()) return why;
    sqlite3_stmt* state = nullptr;
    if (sqlite3_prepare_v2(db.db_, "INSERT INTO states VALUES(?, ?)", -1, &state, nullptr) !=
        SQLITE_OK)
      return db.error("preparing the states");
    const Statement owned(state);
    for (int s = 0; s <= static_cast<int>(sim::MoveState::unreachable); ++s) {
      const std::string_view name = protocol::to_string(static_cast<sim::MoveState>(s));
      sqlite3_bind_int(state, 1, s);
      sqlite3_bind_text(state, 2, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
      if (!run(state)) return db.error("writing the states");
    }
    if (std::string why = db.exec("COMMIT"); !why.empty()) return why;
    return db;
  }
  if (std::string why = db.prepare(); !why.empty()) return why;
  if (const auto last = query_text(db.db_, "SELECT max(frame) FROM frames"))
    db.next_frame_ = std::stoull(*last) + 1;
  if (const auto last = query_text(db.db_, "SELECT max(world) FROM worlds"))
    db.next_world_ = static_cast<std::uint32_t>(std::stoul(*last) + 1);
  if (const auto dropped =
          query_text(db.db_, "SELECT value FROM meta WHERE key = 'frames_dropped'"))
    db.dropped_before_ = std::strtoull(dropped->c_str(), nullptr, 10);
  return db;
}

std::string TrajectoryDb::prepare() {
  statements_ = std::make_unique<Statements>();
  const std::string agents = agent_insert(kAgentsPerInsert);
  const std::pair<Statement*, const char*> all[] = {
      {&statements_->meta, "INSERT OR REPLACE INTO meta VALUES(?, ?)"},
      {&statements_->world, "INSERT INTO worlds VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)"},
      {&statements_->frame, "INSERT INTO frames VALUES(?, ?, ?, ?, ?)"},
      {&statements_->agent, "INSERT INTO trajectory VALUES(?, ?, ?, ?, ?, ?, ?, ?)"},
      {&statements_->agents, agents.c_str()},
      {&statements_->line, "INSERT INTO measurement_lines VALUES(?, ?, ?, ?)"},
      {&statements_->area, "INSERT INTO measurement_areas VALUES(?, ?, ?, ?, ?)"},
  };
  for (const auto& [statement, sql] : all) {
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &raw, nullptr) != SQLITE_OK)
      return error(std::string("preparing ") + std::string(sql).substr(0, 40));
    statement->reset(raw);
  }
  return {};
}

std::string TrajectoryDb::exec(const char* sql) {
  if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) == SQLITE_OK) return {};
  return error(std::string("running ") + std::string(sql).substr(0, 40));
}

std::string TrajectoryDb::error(const std::string& doing) const {
  return "cannot write " + path_ + " (" + doing + "): " + sqlite_message(db_);
}

std::string TrajectoryDb::insert_meta(const Meta& meta) {
  sqlite3_stmt* s = statements_->meta.get();
  for (const auto& [key, value] : meta) {
    sqlite3_bind_text(s, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
    sqlite3_bind_text(s, 2, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
    if (!run(s)) return error("meta " + key);
  }
  return {};
}

std::string TrajectoryDb::insert_world(const WorldRow& w) {
  sqlite3_stmt* s = statements_->world.get();
  // The seed is a 64-bit unsigned integer, beyond SQLite's signed one: kept as its decimal text.
  const std::string seed = std::to_string(w.seed);
  sqlite3_bind_int64(s, 1, w.world);
  sqlite3_bind_text(s, 2, w.began.data(), static_cast<int>(w.began.size()), SQLITE_STATIC);
  sqlite3_bind_text(s, 3, w.scenario.data(), static_cast<int>(w.scenario.size()), SQLITE_STATIC);
  sqlite3_bind_text(s, 4, seed.data(), static_cast<int>(seed.size()), SQLITE_STATIC);
  bind_u64(s, 5, w.tick);
  sqlite3_bind_double(s, 6, w.tick_rate);
  sqlite3_bind_double(s, 7, w.frame_rate);
  sqlite3_bind_double(s, 8, w.width);
  sqlite3_bind_double(s, 9, w.height);
  return run(s) ? std::string() : error("world " + std::to_string(w.world));
}

std::string TrajectoryDb::insert_frame(const TrajectoryFrame& f) {
  sqlite3_stmt* s = statements_->frame.get();
  bind_u64(s, 1, f.frame);
  sqlite3_bind_int64(s, 2, f.world);
  bind_u64(s, 3, f.tick);
  sqlite3_bind_double(s, 4, f.time);
  bind_u64(s, 5, f.agents.size());
  if (!run(s)) return error("frame " + std::to_string(f.frame));
  // Rows in id order, whole statements of kAgentsPerInsert first.
  auto bind_agent = [&f](sqlite3_stmt* st, int first, const AgentRow& a) {
    bind_u64(st, first, f.frame);
    sqlite3_bind_int64(st, first + 1, a.id);
    sqlite3_bind_double(st, first + 2, a.x);
    sqlite3_bind_double(st, first + 3, a.y);
    sqlite3_bind_double(st, first + 4, a.vx);
    sqlite3_bind_double(st, first + 5, a.vy);
    sqlite3_bind_int(st, first + 6, a.state);
    sqlite3_bind_int(st, first + 7, a.group);
  };
  const std::size_t whole = f.agents.size() - f.agents.size() % kAgentsPerInsert;
  s = statements_->agents.get();
  for (std::size_t i = 0; i < whole; i += kAgentsPerInsert) {
    for (std::size_t k = 0; k < kAgentsPerInsert; ++k)
      bind_agent(s, static_cast<int>(k) * kAgentColumns + 1, f.agents[i + k]);
    if (!run(s)) return error("frame " + std::to_string(f.frame) + "'s agents");
  }
  s = statements_->agent.get();
  for (std::size_t i = whole; i < f.agents.size(); ++i) {
    bind_agent(s, 1, f.agents[i]);
    if (!run(s)) return error("frame " + std::to_string(f.frame) + "'s agents");
  }
  s = statements_->line.get();
  for (const LineRow& l : f.lines) {
    bind_u64(s, 1, f.frame);
    sqlite3_bind_int64(s, 2, l.id);
    bind_u64(s, 3, l.forward);
    bind_u64(s, 4, l.backward);
    if (!run(s)) return error("frame " + std::to_string(f.frame) + "'s measurement lines");
  }
  s = statements_->area.get();
  for (const AreaRow& a : f.areas) {
    bind_u64(s, 1, f.frame);
    sqlite3_bind_int64(s, 2, a.id);
    sqlite3_bind_int64(s, 3, a.count);
    sqlite3_bind_double(s, 4, a.density);
    if (a.mean_speed)
      sqlite3_bind_double(s, 5, *a.mean_speed);
    else
      sqlite3_bind_null(s, 5);
    if (!run(s)) return error("frame " + std::to_string(f.frame) + "'s measurement areas");
  }
  return {};
}

std::string TrajectoryDb::write(std::span<const WorldRow> worlds,
                                std::span<const TrajectoryFrame* const> frames, const Meta& meta) {
  if (std::string why = exec("BEGIN IMMEDIATE"); !why.empty()) return why;
  std::string why;
  for (const WorldRow& w : worlds)
    if (why.empty()) why = insert_world(w);
  for (const TrajectoryFrame* f : frames)
    if (why.empty()) why = insert_frame(*f);
  if (why.empty()) why = insert_meta(meta);
  if (why.empty()) why = exec("COMMIT");
  if (!why.empty()) exec("ROLLBACK");  // nothing of the batch stays
  return why;
}

std::string TrajectoryDb::set_meta(const Meta& meta) { return write({}, {}, meta); }

void TrajectoryDb::close() {
  statements_.reset();
  if (db_) sqlite3_close_v2(std::exchange(db_, nullptr));
}

}  // namespace herd::app
