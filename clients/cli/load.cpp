// herd-ctl load: many viewer connections in one process, one io_context (Beast, like the server),
// and optionally one commander measuring command latency. One unit past 400 lines: the
// connections, the commander and the report share one per-connection record and its counters.
//
// Snapshot age: a snapshot carries its world time, not the wall time it was sent, so each
// connection measures (arrival wall time - snapshot world time) and reports how far each arrival
// is above the smallest value it saw: the delay added by queues and the network beyond the best
// case. Gaps: a snapshot whose tick is more than one snapshot interval after the previous one.
//
// Binary viewers (--format binary) decode every frame against their acknowledged states as a
// real client does (--decode header: read only the header, to leave the CPU to the server) and
// acknowledge each one; --viewport W,H gives each one a W x H rectangle at a random place.
//
// The machine: a probe thread wakes every 5 ms throughout, counts wakes over 20 ms late and times
// a fixed piece of work at every 20th wake, 10 times a second (wake_probe.hpp). Late wakes mean the
// machine held runnable threads back; the work taking longer than in other runs means the machine
// ran slower. Either shows in the server's figures too: a cue to measure again.
//
// Command latency (--commands RATE): a commander sends an idempotent command RATE times a
// second and measures, from sending it, its ack, and the first snapshot whose tick is at least
// the ack's (PROTOCOL.md: that snapshot reflects it). Its own snapshots are binary with a tiny
// viewport, so it reads little.
#include <sys/resource.h>
#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cli/ctl.hpp"
#include "cli/wake_probe.hpp"
#include "protocol/codec.hpp"
#include "protocol/snapshot_binary.hpp"

namespace herd::cli {
namespace {

// CPU time this process has used, user and system: the load tool shares the machine with what it
// measures, so a run says what it took for itself.
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// The number after "key": in a JSON text, without a full parse (the load tool reads a lot).
double field(const std::string& text, std::string_view key) {
  std::string needle = "\"";
  needle += key;
  needle += "\":";
  const auto at = text.find(needle);
  return at == std::string::npos ? -1 : std::strtod(text.c_str() + at + needle.size(), nullptr);
}

// The agents in a JSON snapshot: the records in its "agents" array, which comes before
// "obstacles" (when present) and "collisions" (PROTOCOL.md's order), counted without a full
// parse.
std::uint64_t json_agents(const std::string& text) {
  const auto begin = text.find("\"agents\":[");
  if (begin == std::string::npos) return 0;
  const auto end = std::min(
      {text.find("\"obstacles\":", begin), text.find("\"collisions\":", begin), text.size()});
  std::uint64_t n = 0;
  for (auto at = text.find("{\"id\":", begin); at < end; at = text.find("{\"id\":", at + 1)) ++n;
  return n;
}

struct Totals {
  std::uint64_t snapshots = 0, gaps = 0, failures = 0, connected = 0, bytes = 0, agents = 0,
                keyframes = 0, keyframe_requests = 0, decode_errors = 0;
  std::vector<double> ages_ms;
  std::vector<double> ack_ms, reflect_ms;  // command latency
  std::map<std::string, std::uint64_t>
      refusals;  // sessions the server closed before its welcome, by reason
  double tick_rate = 0, snapshot_rate = 0;
};

class Viewer : public std::enable_shared_from_this<Viewer> {
 public:
  Viewer(asio::io_context& ioc, const Url& url, const LoadOptions& opts, Totals& totals,
         Clock::time_point start, std::uint32_t seed, bool commander = false)
      : ws_(ioc),
        timer_(ioc),
        url_(url),
        opts_(opts),
        totals_(totals),
        start_(start),
        rng_(seed),
        commander_(commander) {}

  void run(const tcp::resolver::results_type& endpoints) {
    beast::get_lowest_layer(ws_).expires_after(std::chrono::seconds(10));
    beast::get_lowest_layer(ws_).async_connect(
        endpoints, [self = shared_from_this()](beast::error_code ec, const tcp::endpoint&) {
          if (ec) return self->failed();
          beast::get_lowest_layer(self->ws_).expires_never();
          beast::error_code ignored;  // acks go at once, as browsers send them
          beast::get_lowest_layer(self->ws_).socket().set_option(tcp::no_delay(true), ignored);
          self->ws_.async_handshake(self->url_.host + ":" + std::to_string(self->url_.port),
                                    self->url_.path, [self](beast::error_code ec2) {
                                      if (ec2) return self->failed();
                                      self->ws_.read_message_max(64u << 20);
                                      self->hello();
                                    });
        });
  }

  void close() {
    timer_.cancel();
    beast::error_code ec;
    beast::get_lowest_layer(ws_).socket().close(ec);
  }

  void collect() {
    for (double o : offsets_) totals_.ages_ms.push_back((o - best_) * 1000);
  }

 private:
  bool binary() const { return commander_ || opts_.binary; }

  void failed() { ++totals_.failures; }

  void hello() {
    protocol::Hello h;
    h.role = commander_ ? protocol::Role::commander : opts_.role;
    h.client = commander_ ? "herd-ctl load commander" : "herd-ctl load";
    h.token = commander_ || opts_.role == protocol::Role::player ? opts_.token : std::string();
    h.format = binary() ? protocol::SnapshotFormat::binary : protocol::SnapshotFormat::json;
    if (!commander_) h.scale = opts_.scale;
    send(protocol::encode(h));
    read();
  }

  // Writes one at a time; a viewer sends little (hello, a viewport, an ack per frame).
  void send(std::string text) {
    outbox_.push_back(std::move(text));
    if (outbox_.size() == 1) write_next();
  }

  void write_next() {
    ws_.text(true);
    ws_.async_write(asio::buffer(outbox_.front()),
                    [self = shared_from_this()](beast::error_code ec, std::size_t) {
                      if (ec) return;
                      self->outbox_.pop_front();
                      if (!self->outbox_.empty()) self->write_next();
                    });
  }

  void read() {
    ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t n) {
      if (ec) return self->closed(ec);
      const auto now = Clock::now();
      if (!self->commander_) self->totals_.bytes += n;
      // Read where it lies (a flat buffer is one run of bytes): a viewer's frames are thousands
      // of bytes, twenty times a second, and the tool shares the machine with what it measures.
      const std::string_view data(static_cast<const char*>(self->buffer_.data().data()),
                                  self->buffer_.size());
      if (self->ws_.got_binary())
        self->on_binary(data, now);
      else
        self->on_text(std::string(data), now);
      self->buffer_.consume(self->buffer_.size());
      self->read();
    });
  }

  // Closed at the end of the run, or by the server: before its welcome, that is a refusal (the
  // server accepts the WebSocket and closes it with a reason, e.g. too many sessions from this
  // address), counted apart from the sessions it accepted.
  void closed(beast::error_code ec) {
    if (welcomed_ || commander_) return;
    if (ec == websocket::error::closed) {
      const auto& why = ws_.reason();
      ++totals_.refusals[why.reason.empty() ? "close code " + std::to_string(why.code)
                                            : std::string(why.reason.data(), why.reason.size())];
    } else if (ec != asio::error::operation_aborted) {
      failed();
    }
  }

  void on_text(const std::string& text, Clock::time_point now) {
    if (text.find("\"type\":\"welcome\"") != std::string::npos) {
      if (!welcomed_ && !commander_) ++totals_.connected;
      welcomed_ = true;
      const double tick_rate = field(text, "tick_rate"),
                   snapshot_rate = field(text, "snapshot_rate");
      interval_ = snapshot_rate > 0 ? tick_rate / snapshot_rate : 1;
      totals_.tick_rate = tick_rate;
      totals_.snapshot_rate = snapshot_rate;
      world_w_ = field(text, "width");
      world_h_ = field(text, "height");
      send_viewport();
      if (commander_) schedule_command();
      return;
    }
    if (text.rfind("{\"type\":\"ack\"", 0) == 0 && commander_) return on_ack(text, now);
    if (text.rfind("{\"type\":\"snapshot\"", 0) != 0) return;
    snapshot(static_cast<std::uint64_t>(field(text, "tick")), field(text, "time"),
             json_agents(text), now);
  }

  void on_binary(std::string_view bytes, Clock::time_point now) {
    std::uint64_t agents = 0, tick = 0;
    double time = 0;
    bool keyframe = false;
    if (opts_.decode_full || commander_) {
      auto got = client_.receive(bytes);
      if (got.keyframe) {
        ++totals_.keyframe_requests;
        send(protocol::encode(protocol::KeyframeRequest{}));
      }
      if (!got.frame) {
        ++totals_.decode_errors;
        return;
      }
      send(protocol::encode(protocol::SnapshotAck{*got.ack}));
      tick = got.frame->header.tick;
      time = got.frame->header.time;
      agents = got.frame->agents.size();
      keyframe = !got.frame->header.delta;
    } else {
      auto head = protocol::read_binary_header(bytes);
      auto* h = std::get_if<protocol::BinaryHeader>(&head);
      if (!h) {
        ++totals_.decode_errors;
        return;
      }
      send(protocol::encode(protocol::SnapshotAck{h->tick}));
      tick = h->tick;
      time = h->time;
      agents = h->agent_count;
      keyframe = !h->delta;
    }
    snapshot(tick, time, agents, now);
    if (keyframe && !commander_) ++totals_.keyframes;
  }

  void snapshot(std::uint64_t tick, double time, std::uint64_t agents, Clock::time_point now) {
    if (commander_) return on_commander_snapshot(tick, now);
    const double offset = std::chrono::duration<double>(now - start_).count() - time;
    best_ = std::min(best_, offset);
    offsets_.push_back(offset);
    const double t = static_cast<double>(tick);
    if (last_tick_ >= 0 && t - last_tick_ > std::ceil(interval_) + 0.5) ++totals_.gaps;
    last_tick_ = t;
    ++totals_.snapshots;
    totals_.agents += agents;
  }

  void send_viewport() {
    if (!binary()) return;
    double w = opts_.view_w, h = opts_.view_h;
    if (commander_) w = h = 1;  // it only needs ticks
    if (w <= 0 || h <= 0 || world_w_ <= 0 || world_h_ <= 0) return;
    std::uniform_real_distribution<double> ux(0, std::max(0.0, world_w_ - w)),
        uy(0, std::max(0.0, world_h_ - h));
    const double x0 = commander_ ? 0 : ux(rng_), y0 = commander_ ? 0 : uy(rng_);
    send(protocol::encode(protocol::ViewportMsg{protocol::Viewport{x0, y0, x0 + w, y0 + h}}));
  }

  // ---- the commander ----
  void schedule_command() {
    timer_.expires_after(std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(1.0 / opts_.commands)));
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec) return;
      const std::uint32_t seq = ++self->seq_;
      self->sent_at_[seq] = Clock::now();
      self->send(R"({"type":"command","seq":)" + std::to_string(seq) +
                 R"(,"cmd":"set_avoidance","max_neighbours":16})");
      self->schedule_command();
    });
  }

  void on_ack(const std::string& text, Clock::time_point now) {
    const auto seq = static_cast<std::uint32_t>(field(text, "seq"));
    auto it = sent_at_.find(seq);
    if (it == sent_at_.end()) return;
    totals_.ack_ms.push_back(std::chrono::duration<double, std::milli>(now - it->second).count());
    waiting_.emplace_back(static_cast<std::uint64_t>(field(text, "tick")), it->second);
    sent_at_.erase(it);
  }

  void on_commander_snapshot(std::uint64_t tick, Clock::time_point now) {
    std::erase_if(waiting_, [&](const auto& w) {
      if (tick < w.first) return false;
      totals_.reflect_ms.push_back(
          std::chrono::duration<double, std::milli>(now - w.second).count());
      return true;
    });
  }

  websocket::stream<beast::tcp_stream> ws_;
  asio::steady_timer timer_;
  Url url_;
  const LoadOptions& opts_;
  Totals& totals_;
  Clock::time_point start_;
  std::mt19937 rng_;
  bool commander_;
  bool welcomed_ = false;  // the server accepted the session (its welcome came)
  beast::flat_buffer buffer_;
  std::deque<std::string> outbox_;
  protocol::BinaryClient client_;
  double interval_ = 1, last_tick_ = -1, best_ = 1e300, world_w_ = 0, world_h_ = 0;
  std::vector<double> offsets_;
  std::uint32_t seq_ = 0;
  std::map<std::uint32_t, Clock::time_point> sent_at_;
  std::vector<std::pair<std::uint64_t, Clock::time_point>> waiting_;  // acked: tick, sent at
};

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

// One thread's share of the connections: its own io_context and totals (merged at the end).
struct Shard {
  asio::io_context ioc{1};
  Totals totals;
  std::vector<std::shared_ptr<Viewer>> viewers;
};

void merge(Totals& into, Totals& from) {
  into.snapshots += from.snapshots;
  into.gaps += from.gaps;
  into.failures += from.failures;
  into.connected += from.connected;
  for (const auto& [why, n] : from.refusals) into.refusals[why] += n;
  into.bytes += from.bytes;
  into.agents += from.agents;
  into.keyframes += from.keyframes;
  into.keyframe_requests += from.keyframe_requests;
  into.decode_errors += from.decode_errors;
  into.ages_ms.insert(into.ages_ms.end(), from.ages_ms.begin(), from.ages_ms.end());
  into.ack_ms.insert(into.ack_ms.end(), from.ack_ms.begin(), from.ack_ms.end());
  into.reflect_ms.insert(into.reflect_ms.end(), from.reflect_ms.begin(), from.reflect_ms.end());
  into.tick_rate = std::max(into.tick_rate, from.tick_rate);
  into.snapshot_rate = std::max(into.snapshot_rate, from.snapshot_rate);
}

}  // namespace

int run_load(const Url& url, const LoadOptions& opts) {
  beast::error_code ec;
  tcp::resolver::results_type endpoints;
  {
    asio::io_context ioc;
    tcp::resolver resolver(ioc);
    endpoints = resolver.resolve(url.host, std::to_string(url.port), ec);
  }
  if (ec) {
    std::fprintf(stderr, "herd-ctl: cannot resolve %s: %s\n", url.host.c_str(),
                 ec.message().c_str());
    return kUnreachable;
  }
  const auto start = Clock::now();
  // Connections are spread over --threads io_contexts, one thread each, so that one busy thread
  // does not starve the others' handshakes. The commander has a thread of its own, as a real
  // commanding client has its own process: on a viewers' thread its latencies included the wait
  // behind hundreds of frames the same thread had to read first.
  std::vector<std::unique_ptr<Shard>> shards;
  for (int t = 0; t < opts.threads; ++t) shards.push_back(std::make_unique<Shard>());
  for (int i = 0; i < opts.viewers; ++i) {
    Shard& s = *shards[static_cast<std::size_t>(i % opts.threads)];
    s.viewers.push_back(std::make_shared<Viewer>(s.ioc, url, opts, s.totals, start,
                                                 static_cast<std::uint32_t>(i + 1)));
  }
  if (opts.commands > 0) {
    shards.push_back(std::make_unique<Shard>());
    Shard& s = *shards.back();
    s.viewers.push_back(std::make_shared<Viewer>(s.ioc, url, opts, s.totals, start, 0, true));
  }
  WakeProbe probe(std::chrono::milliseconds(5), std::chrono::milliseconds(20), 20);
  probe.start();
  std::vector<std::thread> threads;
  const auto duration =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opts.seconds));
  for (auto& shard : shards)
    threads.emplace_back([&s = *shard, &endpoints, duration, start] {
      for (auto& v : s.viewers) v->run(endpoints);
      s.ioc.run_until(start + duration);
      for (auto& v : s.viewers) v->close();
      s.ioc.restart();
      s.ioc.poll();
      for (auto& v : s.viewers) v->collect();
    });
  for (auto& t : threads) t.join();
  probe.stop();
  const WakeProbe::Stats stalls = probe.stats();
  Totals totals;
  for (auto& shard : shards) merge(totals, shard->totals);
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  const double p50 = percentile(totals.ages_ms, 0.5), p99 = percentile(totals.ages_ms, 0.99);
  const double viewers = std::max<double>(1, static_cast<double>(totals.connected));
  const double per_viewer_bytes = static_cast<double>(totals.bytes) / elapsed / viewers;
  const double agents_per_snapshot =
      totals.snapshots ? static_cast<double>(totals.agents) / static_cast<double>(totals.snapshots)
                       : 0;
  const double ack50 = percentile(totals.ack_ms, 0.5), ack99 = percentile(totals.ack_ms, 0.99);
  const double ref50 = percentile(totals.reflect_ms, 0.5),
               ref99 = percentile(totals.reflect_ms, 0.99);
  const double tick_ms = totals.tick_rate > 0 ? 1000 / totals.tick_rate : 0;
  const double snap_ms = totals.snapshot_rate > 0 ? 1000 / totals.snapshot_rate : 0;
  std::uint64_t refused = 0;
  std::string refusals, refusals_json;
  for (const auto& [why, n] : totals.refusals) {
    refused += n;
    // The reasons are the servers' words (close reasons): printed terminal-safe.
    refusals += (refusals.empty() ? " (" : ", ") + terminal_safe(why) + ": " + std::to_string(n);
    refusals_json += (refusals_json.empty() ? "" : ",") +
                     terminal_safe(nlohmann::json(why).dump()) + ":" + std::to_string(n);
  }
  if (!refusals.empty()) refusals += ")";
  if (!opts.as_json) {
    std::printf("viewers %d connected %llu refused %llu%s failures %llu format %s\n", opts.viewers,
                static_cast<unsigned long long>(totals.connected),
                static_cast<unsigned long long>(refused), refusals.c_str(),
                static_cast<unsigned long long>(totals.failures), opts.binary ? "binary" : "json");
    std::printf(
        "snapshots %llu (%.1f/s in all, %.1f/s per viewer) gaps %llu, %.0f bytes/s per viewer, "
        "%.0f "
        "agents a snapshot\n",
        static_cast<unsigned long long>(totals.snapshots),
        static_cast<double>(totals.snapshots) / elapsed,
        static_cast<double>(totals.snapshots) / elapsed / viewers,
        static_cast<unsigned long long>(totals.gaps), per_viewer_bytes, agents_per_snapshot);
    std::printf(
        "snapshot age above each viewer's best case: p50 %.1f ms, p99 %.1f ms (snapshot interval "
        "%.1f ms)\n",
        p50, p99, snap_ms);
    if (opts.binary)
      std::printf("binary: %llu keyframes (%llu asked for), %llu frames that did not decode\n",
                  static_cast<unsigned long long>(totals.keyframes),
                  static_cast<unsigned long long>(totals.keyframe_requests),
                  static_cast<unsigned long long>(totals.decode_errors));
    if (opts.commands > 0)
      std::printf(
          "command latency: ack p50 %.1f ms p99 %.1f ms (tick %.1f ms); first snapshot reflecting "
          "it "
          "p50 %.1f ms "
          "p99 %.1f ms (tick + snapshot interval %.1f ms); %zu commands\n",
          ack50, ack99, tick_ms, ref50, ref99, tick_ms + snap_ms, totals.ack_ms.size());
    std::printf(
        "machine: a probe thread waking every 5 ms woke over 20 ms late %llu times in %llu, at "
        "most "
        "%.1f ms "
        "late; its fixed work took p50 %.0f us, p90 %.0f us\n",
        static_cast<unsigned long long>(stalls.late), static_cast<unsigned long long>(stalls.wakes),
        stalls.max_late_ms, stalls.work_us_p50, stalls.work_us_p90);
    return totals.connected == 0 ? kUnreachable : kOk;
  }
  std::printf(
      "{\"viewers\":%d,\"connected\":%llu,\"refused\":%llu,\"refusals\":{%s},\"failures\":%llu,"
      "\"snapshots\":%llu,\"snapshots_per_second\":%.2f,"
      "\"gaps\":%llu,\"age_p50_ms\":%.2f,\"age_p99_ms\":%.2f,\"format\":\"%s\",\"bytes_per_second_"
      "per_viewer\":%.0f,"
      "\"agents_per_snapshot\":%.1f,\"keyframes\":%llu,\"keyframe_requests\":%llu,\"decode_"
      "errors\":%llu,"
      "\"commands\":%zu,\"ack_p50_ms\":%.2f,\"ack_p99_ms\":%.2f,\"reflect_p50_ms\":%.2f,\"reflect_"
      "p99_ms\":%.2f,"
      "\"tick_ms\":%.2f,\"snapshot_interval_ms\":%.2f,\"probe_wakes\":%llu,\"probe_late_wakes\":%"
      "llu,\"probe_max_late_"
      "ms\":%.1f,"
      "\"probe_work_us_p50\":%.1f,\"probe_work_us_p90\":%.1f,\"cpu_seconds\":%.2f}\n",
      opts.viewers, static_cast<unsigned long long>(totals.connected),
      static_cast<unsigned long long>(refused), refusals_json.c_str(),
      static_cast<unsigned long long>(totals.failures),
      static_cast<unsigned long long>(totals.snapshots),
      static_cast<double>(totals.snapshots) / elapsed, static_cast<unsigned long long>(totals.gaps),
      p50, p99, opts.binary ? "binary" : "json", per_viewer_bytes, agents_per_snapshot,
      static_cast<unsigned long long>(totals.keyframes),
      static_cast<unsigned long long>(totals.keyframe_requests),
      static_cast<unsigned long long>(totals.decode_errors), totals.ack_ms.size(), ack50, ack99,
      ref50, ref99, tick_ms, snap_ms, static_cast<unsigned long long>(stalls.wakes),
      static_cast<unsigned long long>(stalls.late), stalls.max_late_ms, stalls.work_us_p50,
      stalls.work_us_p90, cpu_seconds());
  return totals.connected == 0 ? kUnreachable : kOk;
}

}  // namespace herd::cli
