// Reading a trajectory database in the tests, with the SQLite library as a researcher's program
// would: a connection (which replays a killed writer's log), rows by a callback, single values.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

namespace herd::testing {

class TrajectoryReader {
 public:
  explicit TrajectoryReader(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close_v2(db_);
      throw std::runtime_error("cannot open " + path + ": " + why);
    }
    sqlite3_busy_timeout(db_, 5000);  // while the writer commits
  }
  ~TrajectoryReader() { sqlite3_close_v2(db_); }
  TrajectoryReader(const TrajectoryReader&) = delete;
  TrajectoryReader& operator=(const TrajectoryReader&) = delete;

  // Calls row(statement) for each row of `sql`.
  template <class Row>
  void each(const std::string& sql, Row row) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error(sql + ": " + sqlite3_errmsg(db_));
    int rc = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) row(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE) throw std::runtime_error(sql + ": " + sqlite3_errmsg(db_));
  }

  std::int64_t integer(const std::string& sql) {
    std::int64_t v = -1;
    each(sql, [&](sqlite3_stmt* s) { v = sqlite3_column_int64(s, 0); });
    return v;
  }

  std::string text(const std::string& sql) {
    std::string v;
    each(sql, [&](sqlite3_stmt* s) {
      if (const unsigned char* t = sqlite3_column_text(s, 0)) v = reinterpret_cast<const char*>(t);
    });
    return v;
  }

  std::map<std::string, std::string> meta() {
    std::map<std::string, std::string> m;
    each("SELECT key, value FROM meta", [&](sqlite3_stmt* s) {
      m[reinterpret_cast<const char*>(sqlite3_column_text(s, 0))] =
          reinterpret_cast<const char*>(sqlite3_column_text(s, 1));
    });
    return m;
  }

  // Frames whose row count differs from their `agents` column, or whose numbers skip: 0 for a
  // file of consecutive, complete frames from 0.
  std::int64_t broken_frames() {
    return integer(
               "SELECT count(*) FROM frames f WHERE f.agents != "
               "(SELECT count(*) FROM trajectory t WHERE t.frame = f.frame)") +
           (integer("SELECT count(*) FROM frames") ==
                    integer("SELECT coalesce(max(frame), -1) + 1 FROM frames")
                ? 0
                : 1);
  }

  sqlite3* handle() { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace herd::testing
