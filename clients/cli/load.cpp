// herd-ctl load: many viewer connections in one process, one io_context (Beast, like the server).
//
// Snapshot age: a snapshot carries its world time, not the wall time it was sent, so each
// connection measures (arrival wall time - snapshot world time) and reports how far each arrival
// is above the smallest value it saw: the delay added by queues and the network beyond the best
// case. Gaps: a snapshot whose tick is more than one snapshot interval after the previous one.
#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/ctl.hpp"

namespace herd::cli {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// The number after "key": in a JSON text, without a full parse (the load tool reads a lot).
double field(const std::string& text, std::string_view key) {
  const std::string needle = "\"" + std::string(key) + "\":";
  const auto at = text.find(needle);
  return at == std::string::npos ? -1 : std::strtod(text.c_str() + at + needle.size(), nullptr);
}

struct Totals {
  std::uint64_t snapshots = 0, gaps = 0, failures = 0, connected = 0;
  std::vector<double> ages_ms;
};

class Viewer : public std::enable_shared_from_this<Viewer> {
 public:
  Viewer(asio::io_context& ioc, const Url& url, Totals& totals, Clock::time_point start)
      : ws_(ioc), url_(url), totals_(totals), start_(start) {}

  void run(const tcp::resolver::results_type& endpoints) {
    beast::get_lowest_layer(ws_).expires_after(std::chrono::seconds(10));
    beast::get_lowest_layer(ws_).async_connect(endpoints, [self = shared_from_this()](beast::error_code ec, const tcp::endpoint&) {
      if (ec) return self->failed();
      beast::get_lowest_layer(self->ws_).expires_never();
      self->ws_.async_handshake(self->url_.host + ":" + std::to_string(self->url_.port), self->url_.path,
                                [self](beast::error_code ec2) {
                                  if (ec2) return self->failed();
                                  ++self->totals_.connected;
                                  self->hello();
                                });
    });
  }

  void close() {
    beast::error_code ec;
    beast::get_lowest_layer(ws_).socket().close(ec);
  }

 private:
  void failed() { ++totals_.failures; }

  void hello() {
    ws_.text(true);
    auto msg = std::make_shared<std::string>(R"({"type":"hello","protocol":1,"role":"viewer","client":"herd-ctl load"})");
    ws_.async_write(asio::buffer(*msg), [self = shared_from_this(), msg](beast::error_code ec, std::size_t) {
      if (ec) return self->failed();
      self->read();
    });
  }

  void read() {
    ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return;  // closed at the end of the run, or by the server
      self->on_message(beast::buffers_to_string(self->buffer_.data()));
      self->buffer_.consume(self->buffer_.size());
      self->read();
    });
  }

  void on_message(const std::string& text) {
    if (text.find("\"type\":\"welcome\"") != std::string::npos) {
      const double tick_rate = field(text, "tick_rate"), snapshot_rate = field(text, "snapshot_rate");
      interval_ = snapshot_rate > 0 ? tick_rate / snapshot_rate : 1;
      return;
    }
    if (text.rfind("{\"type\":\"snapshot\"", 0) != 0) return;
    const double tick = field(text, "tick"), time = field(text, "time");
    const double offset = std::chrono::duration<double>(Clock::now() - start_).count() - time;
    best_ = std::min(best_, offset);
    offsets_.push_back(offset);
    if (last_tick_ >= 0 && tick - last_tick_ > std::ceil(interval_) + 0.5) ++totals_.gaps;
    last_tick_ = tick;
    ++totals_.snapshots;
  }

 public:
  void collect() {
    for (double o : offsets_) totals_.ages_ms.push_back((o - best_) * 1000);
  }

 private:
  websocket::stream<beast::tcp_stream> ws_;
  Url url_;
  Totals& totals_;
  Clock::time_point start_;
  beast::flat_buffer buffer_;
  double interval_ = 1, last_tick_ = -1, best_ = 1e300;
  std::vector<double> offsets_;
};

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace

int run_load(const Url& url, int viewers, double seconds) {
  asio::io_context ioc;
  tcp::resolver resolver(ioc);
  beast::error_code ec;
  const auto endpoints = resolver.resolve(url.host, std::to_string(url.port), ec);
  if (ec) {
    std::fprintf(stderr, "herd-ctl: cannot resolve %s: %s\n", url.host.c_str(), ec.message().c_str());
    return kUnreachable;
  }
  Totals totals;
  const auto start = Clock::now();
  std::vector<std::shared_ptr<Viewer>> all;
  for (int i = 0; i < viewers; ++i) {
    all.push_back(std::make_shared<Viewer>(ioc, url, totals, start));
    all.back()->run(endpoints);
  }
  ioc.run_for(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)));
  for (auto& v : all) v->close();
  ioc.restart();
  ioc.poll();
  for (auto& v : all) v->collect();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  const double p50 = percentile(totals.ages_ms, 0.5), p99 = percentile(totals.ages_ms, 0.99);
  std::printf("viewers %d connected %llu failures %llu\n", viewers, static_cast<unsigned long long>(totals.connected),
              static_cast<unsigned long long>(totals.failures));
  std::printf("snapshots %llu (%.1f/s in all, %.1f/s per viewer) gaps %llu\n", static_cast<unsigned long long>(totals.snapshots),
              static_cast<double>(totals.snapshots) / elapsed,
              static_cast<double>(totals.snapshots) / elapsed / std::max<double>(1, static_cast<double>(totals.connected)),
              static_cast<unsigned long long>(totals.gaps));
  std::printf("snapshot age above each viewer's best case: p50 %.1f ms, p99 %.1f ms\n", p50, p99);
  std::printf("{\"viewers\":%d,\"connected\":%llu,\"failures\":%llu,\"snapshots\":%llu,\"snapshots_per_second\":%.2f,"
              "\"gaps\":%llu,\"age_p50_ms\":%.2f,\"age_p99_ms\":%.2f}\n",
              viewers, static_cast<unsigned long long>(totals.connected), static_cast<unsigned long long>(totals.failures),
              static_cast<unsigned long long>(totals.snapshots), static_cast<double>(totals.snapshots) / elapsed,
              static_cast<unsigned long long>(totals.gaps), p50, p99);
  return totals.connected == 0 ? kUnreachable : kOk;
}

}  // namespace herd::cli
