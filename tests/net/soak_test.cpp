// Load tests against the real herd-server process, on loopback, bounded in time:
//  - a soak: 200 viewers, 20 commanders at their rate limit, 20 sessions that never read and a
//    flood of malformed messages at once; the tick rate holds, every viewer's snapshots keep
//    coming in order, memory stays bounded, and afterwards a new client is served normally;
//  - 10,000 connect/disconnect cycles, some cut mid-handshake or mid-message: the server's
//    connections go back to zero and its memory stays flat.
// The clients are plain non-blocking sockets in one poll loop (tests/net/raw_socket.hpp's
// framing): no thread, no sleep; the loop's poll timeout paces the commanders.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <random>

#include "common/process.hpp"
#include "common/ws_client.hpp"
#include "net/raw_socket.hpp"

namespace herd {
namespace {

using namespace herd::testing;
using Clock = std::chrono::steady_clock;
using net::testing::RawSocket;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// One value from /metrics ("series" with its labels), -1 when absent.
double metric(const std::string& body, const std::string& series) {
  const auto at = body.find("\n" + series + " ");
  return at == std::string::npos ? -1 : std::stod(body.substr(at + series.size() + 2));
}

// A server frame parser and the client side of RFC 6455 on a non-blocking socket.
class Peer {
 public:
  enum class Kind { viewer, commander, non_reader, flooder };

  Peer(std::uint16_t port, Kind kind) : kind_(kind) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (kind == Kind::non_reader) {
      const int small = 4096;
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
    ::fcntl(fd_, F_SETFL, O_NONBLOCK);
    out_ = RawSocket::upgrade_request();
  }
  ~Peer() {
    if (fd_ >= 0) ::close(fd_);
  }

  int fd() const { return fd_; }
  Kind kind() const { return kind_; }
  bool open() const { return fd_ >= 0 && !closed_; }
  bool upgraded() const { return upgraded_; }
  short events() const {
    if (!open()) return 0;
    short e = out_.empty() ? 0 : POLLOUT;
    if (kind_ != Kind::non_reader || !upgraded_) e |= POLLIN;
    return e;
  }

  void on_ready(short revents) {
    if (revents & (POLLIN | POLLHUP | POLLERR)) read();
    if (open() && (revents & POLLOUT)) flush();
  }

  // Called every loop turn: commanders send at their pace, flooders keep their pipe full.
  void act(Clock::time_point now, std::mt19937& rng) {
    if (!open() || !welcomed_) return;
    if (kind_ == Kind::commander && now >= next_command_) {
      next_command_ = now + std::chrono::milliseconds(50);  // 20 per second: the server's limit
      std::uniform_real_distribution<double> x(50, 750), y(50, 550);
      char buf[160];
      std::snprintf(
          buf, sizeof buf,
          R"({"type":"command","seq":%u,"cmd":"set_target","agents":"all","target":{"x":%.1f,"y":%.1f}})",
          ++sent_, x(rng), y(rng));
      send_text(buf);
    }
    if (kind_ == Kind::flooder && out_.size() < 4096) {
      static const char* const kJunk[] = {
          "not json at all",
          R"({"type":"command","seq":1,"cmd":"spawn","count":1e999})",
          R"({"type":"command","seq":2,"cmd":"set_target","agents":"all","target":{"x":NaN,"y":1}})",
          R"({"type":"ping","id":1,"x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]})",
          R"({"type":"warp"})",
          R"({"type":"command","seq":-1,"cmd":"dance"})",
          R"([1,2,3])",
          R"({"type":"command","seq":3,"cmd":"spawn","count":1000})"};
      send_text(kJunk[junk_++ % std::size(kJunk)]);
      if (junk_ % 30 == 0 && flooder_utf8_)
        out_ += RawSocket::text_frame("{\"bad utf8\":\"\xc3\"}");  // closed: 1007
    }
  }

  // Figures the test checks.
  std::uint64_t snapshots = 0, out_of_order = 0, acks = 0, errors = 0, rate_limited = 0,
                forbidden = 0;
  double max_gap_s = 0;
  int close_code = 0;
  std::uint32_t sent() const { return sent_; }

 private:
  void send_text(std::string_view text) { out_ += RawSocket::text_frame(text); }

  void flush() {
    while (!out_.empty()) {
      const ssize_t n = ::send(fd_, out_.data(), out_.size(), MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n <= 0) return end();
      out_.erase(0, static_cast<std::size_t>(n));
    }
  }

  void end() {
    closed_ = true;
    ::close(fd_);
    fd_ = -1;
  }

  void read() {
    char buf[65536];
    for (;;) {
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n == 0) return end();
      if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK) end();
        break;
      }
      in_.append(buf, static_cast<std::size_t>(n));
      if (kind_ == Kind::non_reader && upgraded_) break;
    }
    if (!upgraded_) {
      const auto end_of_head = in_.find("\r\n\r\n");
      if (end_of_head == std::string::npos) return;
      upgraded_ = in_.rfind("HTTP/1.1 101", 0) == 0;
      in_.erase(0, end_of_head + 4);
      const bool commands = kind_ == Kind::commander;
      send_text(commands ? R"({"type":"hello","protocol":1,"role":"commander","client":"soak"})"
                         : R"({"type":"hello","protocol":1,"role":"viewer","client":"soak"})");
      if (kind_ == Kind::non_reader) welcomed_ = true;  // it never reads the welcome
      flush();
    }
    frames();
  }

  // Server frames are unmasked; Beast may split a message into continuation frames.
  void frames() {
    std::size_t at = 0;
    for (;;) {
      if (in_.size() - at < 2) break;
      const auto b0 = static_cast<unsigned char>(in_[at]),
                 b1 = static_cast<unsigned char>(in_[at + 1]);
      std::size_t len = b1 & 0x7f, head = 2;
      if (len == 126) {
        if (in_.size() - at < 4) break;
        len = (static_cast<unsigned char>(in_[at + 2]) << 8) |
              static_cast<unsigned char>(in_[at + 3]);
        head = 4;
      } else if (len == 127) {
        if (in_.size() - at < 10) break;
        len = 0;
        for (int i = 0; i < 8; ++i)
          len = (len << 8) | static_cast<unsigned char>(in_[at + 2 + static_cast<std::size_t>(i)]);
        head = 10;
      }
      if (in_.size() - at < head + len) break;
      const std::string_view payload(in_.data() + at + head, len);
      const int opcode = b0 & 0x0f;
      if (opcode == 0x8) {  // close: answered, then the connection ends, as a browser would
        close_code = len >= 2 ? (static_cast<unsigned char>(payload[0]) << 8) |
                                    static_cast<unsigned char>(payload[1])
                              : 1005;
        out_ = RawSocket::frame(0x8, {});
        flush();
        return end();
      } else if (opcode == 0x9) {  // ping: pong with the same payload
        out_ += RawSocket::frame(0xA, payload);
      } else if (opcode == 0x1 || opcode == 0x0) {
        message_ += payload;
        if (b0 & 0x80) {
          on_message(message_);
          message_.clear();
        }
      }
      at += head + len;
    }
    in_.erase(0, at);
    if (!out_.empty()) flush();
  }

  void on_message(const std::string& m) {
    if (m.rfind(R"({"type":"snapshot","tick":)", 0) == 0) {
      const std::uint64_t tick = std::strtoull(m.c_str() + 26, nullptr, 10);
      if (tick <= last_tick_) ++out_of_order;
      last_tick_ = tick;
      const auto now = Clock::now();
      if (snapshots++ > 0)
        max_gap_s =
            std::max(max_gap_s, std::chrono::duration<double>(now - last_snapshot_).count());
      last_snapshot_ = now;
    } else if (m.rfind(R"({"type":"welcome")", 0) == 0) {
      welcomed_ = true;
    } else if (m.rfind(R"({"type":"ack")", 0) == 0) {
      ++acks;
    } else if (m.rfind(R"({"type":"error")", 0) == 0) {
      ++errors;
      if (m.find("\"rate_limited\"") != std::string::npos) ++rate_limited;
      if (m.find("\"forbidden\"") != std::string::npos) ++forbidden;
    }
  }

  Kind kind_;
  int fd_ = -1;
  bool connected_ = false, closed_ = false, upgraded_ = false, welcomed_ = false;
  std::string in_, out_, message_;
  std::uint64_t last_tick_ = 0;
  Clock::time_point last_snapshot_{};
  Clock::time_point next_command_{};
  std::uint32_t sent_ = 0;
  std::size_t junk_ = 0;
  bool flooder_utf8_ = (next_flooder_++ % 2) == 0;  // half the flooders end with bad UTF-8
  static inline unsigned next_flooder_ = 0;
};

class SoakTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("herd_soak_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    server_ = std::make_unique<Process>(std::vector<std::string>{"--address",
                                                                 "127.0.0.1",
                                                                 "--port",
                                                                 "0",
                                                                 "--web-root",
                                                                 dir_.string(),
                                                                 "--scenario",
                                                                 "default",
                                                                 "--tick-rate",
                                                                 "60",
                                                                 "--snapshot-rate",
                                                                 "20",
                                                                 "--rate-limit",
                                                                 "20",
                                                                 "--rate-burst",
                                                                 "20",
                                                                 "--max-sessions-per-address",
                                                                 "1000",
                                                                 "--slow-client-timeout",
                                                                 "2"},
                                        dir_ / "server.log");
    port_ = static_cast<std::uint16_t>(listening_port(dir_ / "server.log"));
    ASSERT_GT(port_, 0) << slurp(dir_ / "server.log");
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(dir_);
  }

  std::string metrics() { return client::http_request("127.0.0.1", port_, "/metrics").body; }

  // Nothing open but the /metrics request asking: every session and connection has ended.
  bool drained() {
    const std::string m = metrics();
    return metric(m, "herd_connections{kind=\"websocket\"}") == 0 &&
           metric(m, "herd_connections{kind=\"http\"}") <= 1;
  }

  // A brand-new client is served normally: welcome, then snapshots.
  void expect_served() {
    client::WsClient c;
    c.connect("127.0.0.1", port_);
    c.send(R"({"type":"hello","protocol":1,"role":"commander","client":"after"})");
    bool welcome = false, snapshot = false;
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (!(welcome && snapshot) && Clock::now() < deadline) {
      auto text = c.receive(std::chrono::milliseconds(200));
      if (!text) continue;
      welcome = welcome || text->rfind(R"({"type":"welcome")", 0) == 0;
      snapshot = snapshot || text->rfind(R"({"type":"snapshot")", 0) == 0;
    }
    EXPECT_TRUE(welcome && snapshot);
  }

  fs::path dir_;
  std::unique_ptr<Process> server_;
  std::uint16_t port_ = 0;
};

TEST_F(SoakTest, ViewersCommandersNonReadersAndAFloodAtOnce) {
  constexpr double kSeconds = 8;
  std::vector<std::unique_ptr<Peer>> peers;
  auto add = [&](Peer::Kind kind, int n) {
    for (int i = 0; i < n; ++i) peers.push_back(std::make_unique<Peer>(port_, kind));
  };
  add(Peer::Kind::viewer, 200);
  add(Peer::Kind::commander, 20);
  add(Peer::Kind::non_reader, 20);
  add(Peer::Kind::flooder, 10);
  const std::string before = metrics();

  std::mt19937 rng(9);
  std::uint64_t flooder_connections = 10;
  double peak_rss_mb = 0;
  const auto start = Clock::now();
  auto last_rss = start;
  std::vector<pollfd> fds;
  std::map<std::size_t, Clock::time_point> flooder_ended;
  while (seconds_since(start) < kSeconds) {
    const auto now = Clock::now();
    for (auto& p : peers) p->act(now, rng);
    // A flood that the server closed comes back (each flooder at most 20 times a second): the
    // flood of messages never stops.
    for (std::size_t i = 0; i < peers.size(); ++i) {
      auto& p = peers[i];
      if (p->kind() != Peer::Kind::flooder || p->open()) continue;
      auto& ended = flooder_ended[i];
      if (ended == Clock::time_point{}) ended = now;
      if (now - ended < std::chrono::milliseconds(50)) continue;
      ended = {};
      p = std::make_unique<Peer>(port_, Peer::Kind::flooder);
      ++flooder_connections;
    }
    fds.clear();
    for (auto& p : peers) fds.push_back({p->fd(), p->events(), 0});
    ::poll(fds.data(), fds.size(), 5);
    for (std::size_t i = 0; i < fds.size(); ++i)
      if (fds[i].revents) peers[i]->on_ready(fds[i].revents);
    if (now - last_rss > std::chrono::seconds(1)) {
      last_rss = now;
      peak_rss_mb = std::max(peak_rss_mb, metric(metrics(), "process_resident_memory_bytes") / 1e6);
    }
  }
  const double elapsed = seconds_since(start);
  const std::string after = metrics();

  // The tick rate held.
  const double ticks = metric(after, "herd_tick") - metric(before, "herd_tick");
  const double overruns =
      metric(after, "herd_tick_overruns_total") - metric(before, "herd_tick_overruns_total");
  // The load generator takes about one of the machine's two cores (measured: 0 to 4 overruns).
  EXPECT_GE(ticks, 0.9 * 60 * elapsed) << "ticks in " << elapsed << " s";
  EXPECT_LE(overruns, 8);
  // Every well-behaved viewer kept receiving, in order, without a long gap.
  std::uint64_t least = UINT64_MAX, total = 0;
  double worst_gap = 0;
  for (auto& p : peers)
    if (p->kind() == Peer::Kind::viewer) {
      EXPECT_TRUE(p->open());
      EXPECT_EQ(p->out_of_order, 0u);
      least = std::min(least, p->snapshots);
      total += p->snapshots;
      worst_gap = std::max(worst_gap, p->max_gap_s);
    }
  EXPECT_GE(static_cast<double>(least), 0.8 * 20 * (elapsed - 1))
      << "the fewest snapshots a viewer got";
  EXPECT_LE(worst_gap, 0.5) << "longest wait between two snapshots, seconds";
  // Commanders at their limit were served; what went over it was refused, never applied silently.
  std::uint64_t sent = 0, acks = 0, limited = 0, other_errors = 0;
  for (auto& p : peers)
    if (p->kind() == Peer::Kind::commander) {
      sent += p->sent();
      acks += p->acks;
      limited += p->rate_limited;
      other_errors += p->errors - p->rate_limited;
    }
  EXPECT_GE(static_cast<double>(acks), 0.9 * static_cast<double>(sent));
  EXPECT_EQ(other_errors, 0u);
  // The flood was refused and cut off, again and again.
  EXPECT_GT(metric(after, "herd_refusals_total{reason=\"flooding\"}"), 0);
  EXPECT_GT(metric(after, "herd_refusals_total{reason=\"too_deep\"}"), 0);
  EXPECT_GT(metric(after, "herd_refusals_total{reason=\"invalid_utf8\"}"), 0);
  EXPECT_GT(metric(after, "herd_errors_total{code=\"bad_json\"}"), 0);
  // Memory stayed bounded.
  EXPECT_LT(peak_rss_mb, 150);
  std::printf(
      "soak: %.1f s, %g ticks, %g overruns; 200 viewers: %llu snapshots (fewest %llu), worst gap "
      "%.0f ms; "
      "20 commanders: %llu sent, %llu acked, %llu rate_limited; %llu flood connections; peak RSS "
      "%.1f MB; "
      "refusals: %g\n",
      elapsed, ticks, overruns, static_cast<unsigned long long>(total),
      static_cast<unsigned long long>(least), worst_gap * 1000,
      static_cast<unsigned long long>(sent), static_cast<unsigned long long>(acks),
      static_cast<unsigned long long>(limited),
      static_cast<unsigned long long>(flooder_connections), peak_rss_mb,
      metric(after, "herd_refusals_total{reason=\"flooding\"}"));

  peers.clear();  // everyone leaves
  expect_served();
  EXPECT_TRUE(wait_until([&] { return drained(); })) << metrics();
}

TEST_F(SoakTest, TenThousandConnectionsComeAndGoWithoutALeak) {
  std::uint64_t cycles = 0;
  auto batch = [&](int n) {
    for (int i = 0; i < n; ++i, ++cycles) {
      RawSocket s(port_);
      switch (cycles % 6) {
        case 0:  // connect and go
          break;
        case 1:  // cut mid-request
          s.write_all("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgr");
          break;
        case 2:  // cut mid-handshake, with a reset
          s.write_all(RawSocket::upgrade_request().substr(0, 60));
          s.reset();
          break;
        case 3: {  // handshake, hello, then half a frame
          s.write_all(RawSocket::upgrade_request());
          s.read_until("\r\n\r\n", std::chrono::seconds(5));
          const std::string hello =
              RawSocket::text_frame(R"({"type":"hello","protocol":1,"role":"viewer"})");
          s.write_all(hello);
          s.write_all(hello.substr(0, hello.size() / 2));
          break;
        }
        case 4:  // a whole session, then a reset instead of a close
          s.write_all(RawSocket::upgrade_request());
          s.read_until("\r\n\r\n", std::chrono::seconds(5));
          s.write_all(RawSocket::text_frame(R"({"type":"hello","protocol":1,"role":"viewer"})"));
          s.read_until("\"welcome\"", std::chrono::seconds(5));
          s.reset();
          break;
        default:  // a proper close handshake
          s.write_all(RawSocket::upgrade_request());
          s.read_until("\r\n\r\n", std::chrono::seconds(5));
          s.write_all(RawSocket::frame(0x8, "\x03\xe8"));  // 1000, normal closure
          s.wait_closed(std::chrono::seconds(5));
          break;
      }
    }
  };
  batch(1000);  // warm-up: allocators and caches reach their working size
  ASSERT_TRUE(wait_until([&] { return drained(); })) << metrics();
  const double rss_warm = metric(metrics(), "process_resident_memory_bytes") / 1e6;
  const auto start = Clock::now();
  batch(9000);
  const double elapsed = seconds_since(start);
  ASSERT_TRUE(wait_until([&] { return drained(); })) << metrics();
  const double rss_end = metric(metrics(), "process_resident_memory_bytes") / 1e6;
  EXPECT_LT(rss_end - rss_warm, 4.0) << "MB grown over 9,000 more connections";
  std::printf(
      "cycles: %llu connections (9,000 in %.1f s); RSS %.1f MB after 1,000, %.1f MB after 10,000\n",
      static_cast<unsigned long long>(cycles), elapsed, rss_warm, rss_end);
  expect_served();
}

}  // namespace
}  // namespace herd
