#include "net/session_list.hpp"

#include <algorithm>

namespace herd::net {

protocol::SessionList list_sessions(std::uint32_t seq, std::uint64_t asker,
                                    std::vector<SessionRow> rows,
                                    SessionStats::Clock::time_point now, std::size_t cap) {
  std::sort(rows.begin(), rows.end(),
            [](const SessionRow& a, const SessionRow& b) { return a.id < b.id; });
  protocol::SessionList list;
  list.seq = seq;
  if (cap == 0) cap = 1;  // the asker's row at least
  if (rows.size() > cap) {
    list.omitted = rows.size() - cap;
    // In id order: the asker's row, and the first others that leave room for it.
    const bool listed = std::any_of(rows.begin(), rows.end(),
                                    [asker](const SessionRow& r) { return r.id == asker; });
    std::size_t others = listed ? cap - 1 : cap;
    std::vector<SessionRow> kept;
    kept.reserve(cap);
    for (const SessionRow& r : rows) {
      if (r.id == asker)
        kept.push_back(r);
      else if (others > 0) {
        kept.push_back(r);
        --others;
      }
    }
    rows = std::move(kept);
  }
  list.sessions.reserve(rows.size());
  for (const SessionRow& r : rows) {
    protocol::SessionInfo s;
    s.id = r.id;
    s.role = r.role;
    s.format = r.format;
    s.client = std::string(r.client);
    s.player = std::string(r.player);
    s.team = r.team;
    s.you = r.id == asker;
    if (const SessionStats* st = r.stats) {
      s.address = st->address;
      s.connected_s = std::max(0.0, std::chrono::duration<double>(now - st->opened).count());
      s.bytes_sent = st->bytes_sent.load(std::memory_order_relaxed);
      s.snapshots_sent = st->snapshots_sent.load(std::memory_order_relaxed);
      s.dropped = st->dropped.load(std::memory_order_relaxed);
      if (const std::int64_t rtt = st->rtt_us.load(std::memory_order_relaxed); rtt >= 0)
        s.rtt_ms = static_cast<double>(rtt) / 1000.0;
    }
    list.sessions.push_back(std::move(s));
  }
  return list;
}

}  // namespace herd::net
