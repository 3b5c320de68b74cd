// herd-ctl hops: the latency a relay adds. One JSON viewer on the server and one on each relay
// (or on each relay of a chain) note when each snapshot's tick arrives; a tick seen at both ends
// gives the hop's added latency, measured on one clock in one process. Each hop's welcome says
// what it is: a relay's carries `upstream` (connected or reconnecting), a server's does not.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cli/ctl.hpp"
#include "common/ws_client.hpp"
#include "protocol/codec.hpp"
#include "protocol/snapshot_binary.hpp"

namespace herd::cli {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

struct Arrivals {
  std::map<std::uint64_t, Clock::time_point> at;  // tick -> when its snapshot came
  double snapshot_rate = 0;
  bool welcomed = false;
  std::string upstream;  // the last welcome's, a relay's only: "connected" or "reconnecting"
  std::string error;
  // "server" or "relay", from the welcome; "?" when none came.
  std::string role() const { return !welcomed ? "?" : upstream.empty() ? "server" : "relay"; }
};

// A welcome's fields that hops reports (a relay welcomes again when its upstream's state changes).
void read_welcome(const std::string& text, Arrivals& out) {
  const json w = json::parse(text, nullptr, false);
  if (!w.is_object()) return;
  out.welcomed = true;
  if (w.contains("snapshot_rate") && w["snapshot_rate"].is_number())
    out.snapshot_rate = w["snapshot_rate"].get<double>();
  out.upstream = w.contains("upstream") && w["upstream"].is_string()
                     ? w["upstream"].get<std::string>()
                     : std::string();
}

void watch(const Url& url, Clock::time_point until, Arrivals& out) {
  try {
    client::WsClient ws;
    ws.connect(url);  // wss:// verified against the system's certificates
    // `auto`: a world of over 1,000 agents comes as binary frames, which cost every hop less
    // than its JSON; each is acknowledged (deltas, shared with the hop's other whole-world
    // viewers) and only its header read.
    ws.send(
        R"({"type":"hello","protocol":1,"role":"viewer","client":"herd-ctl hops","format":"auto"})");
    while (Clock::now() < until) {
      auto text = ws.receive(std::chrono::milliseconds(100));
      const auto now = Clock::now();
      if (!text) continue;
      if (protocol::is_binary_snapshot(*text)) {
        const auto head = protocol::read_binary_header(*text);
        if (const auto* h = std::get_if<protocol::BinaryHeader>(&head)) {
          out.at.emplace(h->tick, now);
          ws.send(protocol::encode(protocol::SnapshotAck{h->tick}));
        }
      } else if (const auto tick = protocol::snapshot_tick(*text))
        out.at.emplace(*tick, now);
      else if (text->rfind(R"({"type":"welcome")", 0) == 0)
        read_welcome(*text, out);
    }
  } catch (const std::exception& e) {
    out.error = e.what();
  }
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1,
                    static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5))];
}

// What one relay added over the hop it is measured against (the first, or in a chain the one
// before it): its snapshots, the ticks seen at both, and how much later than there those
// arrived (ms).
struct Hop {
  std::size_t snapshots = 0, common = 0;
  double p50 = 0, p99 = 0, max = 0;
};

Hop measure(const Arrivals& first, const Arrivals& relay) {
  std::vector<double> added;
  for (const auto& [tick, when] : relay.at)
    if (const auto it = first.at.find(tick); it != first.at.end())
      added.push_back(std::chrono::duration<double, std::milli>(when - it->second).count());
  Hop hop{relay.at.size(), added.size()};
  if (!added.empty()) {
    hop.p50 = percentile(added, 0.5);
    hop.p99 = percentile(added, 0.99);
    hop.max = *std::max_element(added.begin(), added.end());
  }
  return hop;
}

// Milliseconds to the hundredth, as the report shows them.
double hundredths(double v) { return std::round(v * 100) / 100; }

std::string ms(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f ms", v);
  return text;
}

// The report for people: a row per hop, the columns aligned, then what "added" means.
void print_table(const std::vector<Url>& urls, const std::vector<Arrivals>& arrivals,
                 const std::vector<Hop>& hops, double interval_ms, bool chain) {
  std::vector<std::vector<std::string>> rows{
      {"hop", "role", "upstream", "snapshots", "on both", "added p50", "p99", "max"}};
  rows.push_back({urls[0].text(), arrivals[0].role(),
                  arrivals[0].upstream.empty() ? "-" : arrivals[0].upstream,
                  std::to_string(arrivals[0].at.size()), "-", "-", "-", "-"});
  for (std::size_t i = 0; i < hops.size(); ++i) {
    const Arrivals& a = arrivals[i + 1];
    const Hop& h = hops[i];
    const bool measured = h.common > 0;
    rows.push_back({urls[i + 1].text(), a.role(), a.upstream.empty() ? "-" : a.upstream,
                    std::to_string(h.snapshots), std::to_string(h.common),
                    measured ? ms(h.p50) : "-", measured ? ms(h.p99) : "-",
                    measured ? ms(h.max) : "-"});
  }
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c)
      line += c + 1 < row.size() ? row[c] + std::string(width[c] - row[c].size() + 2, ' ') : row[c];
    std::cout << terminal_safe(line) << "\n";
  }
  std::cout << (chain ? "added: how much later than at the hop before each snapshot came"
                      : "added: how much later than at the first hop each snapshot came")
            << ", over the ticks seen at both; a snapshot every " << format_number(interval_ms)
            << " ms" << std::endl;
}

void print_json(const std::vector<Url>& urls, const std::vector<Arrivals>& arrivals,
                const std::vector<Hop>& hops, double interval_ms, bool chain) {
  json relays = json::array();
  for (std::size_t i = 0; i < hops.size(); ++i) {
    const Hop& h = hops[i];
    const Arrivals& a = arrivals[i + 1];
    relays.push_back({{"url", urls[i + 1].text()},
                      {"role", a.role()},
                      {"upstream", a.upstream.empty() ? json() : json(a.upstream)},
                      {"snapshots", h.snapshots},
                      {"common", h.common},
                      {"added_ms_p50", hundredths(h.p50)},
                      {"added_ms_p99", hundredths(h.p99)},
                      {"added_ms_max", hundredths(h.max)}});
  }
  const json report = {{"snapshot_interval_ms", interval_ms},
                       {"chain", chain},
                       {"server_url", urls[0].text()},
                       {"server_role", arrivals[0].role()},
                       {"server_snapshots", arrivals[0].at.size()},
                       {"relays", relays}};
  std::cout << terminal_safe(report.dump()) << std::endl;
}

}  // namespace

int run_hops(const Url& server, const std::vector<Url>& relays, double seconds, bool as_json,
             bool chain) {
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(seconds));
  std::vector<Url> urls{server};
  urls.insert(urls.end(), relays.begin(), relays.end());
  std::vector<Arrivals> arrivals(urls.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < urls.size(); ++i)
    threads.emplace_back([&, i] { watch(urls[i], until, arrivals[i]); });
  for (auto& t : threads) t.join();
  for (const Arrivals& a : arrivals)
    if (!a.error.empty()) {
      std::cerr << "herd-ctl: " << terminal_safe(a.error) << "\n";
      return kUnreachable;
    }
  const double interval_ms = arrivals[0].snapshot_rate > 0 ? 1000.0 / arrivals[0].snapshot_rate : 0;
  std::vector<Hop> hops;
  for (std::size_t i = 1; i < arrivals.size(); ++i)
    hops.push_back(measure(arrivals[chain ? i - 1 : 0], arrivals[i]));
  if (as_json)
    print_json(urls, arrivals, hops, interval_ms, chain);
  else
    print_table(urls, arrivals, hops, interval_ms, chain);
  return kOk;
}

}  // namespace herd::cli
