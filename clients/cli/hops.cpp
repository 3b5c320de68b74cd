// herd-ctl hops: the latency a relay adds. One JSON viewer on the server and one on each relay
// (or on each relay of a chain) note when each snapshot's tick arrives; a tick seen at both ends
// gives the hop's added latency, measured on one clock in one process.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include "cli/ctl.hpp"
#include "common/ws_client.hpp"
#include "protocol/codec.hpp"

namespace herd::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct Arrivals {
  std::map<std::uint64_t, Clock::time_point> at;  // tick -> when its snapshot came
  double snapshot_rate = 0;
  std::string error;
};

void watch(const Url& url, Clock::time_point until, Arrivals& out) {
  try {
    client::WsClient ws;
    ws.connect(url);  // wss:// verified against the system's certificates
    ws.send(R"({"type":"hello","protocol":1,"role":"viewer","client":"herd-ctl hops"})");
    while (Clock::now() < until) {
      auto text = ws.receive(std::chrono::milliseconds(100));
      const auto now = Clock::now();
      if (!text) continue;
      if (const auto tick = protocol::snapshot_tick(*text)) {
        out.at.emplace(*tick, now);
      } else if (text->rfind(R"({"type":"welcome")", 0) == 0) {
        const auto at = text->find(R"("snapshot_rate":)");
        if (at != std::string::npos)
          out.snapshot_rate = std::strtod(text->c_str() + at + 16, nullptr);
      }
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

}  // namespace

int run_hops(const Url& server, const std::vector<Url>& relays, double seconds) {
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(seconds));
  std::vector<Arrivals> arrivals(relays.size() + 1);
  std::vector<std::thread> threads;
  threads.emplace_back([&] { watch(server, until, arrivals[0]); });
  for (std::size_t i = 0; i < relays.size(); ++i)
    threads.emplace_back([&, i] { watch(relays[i], until, arrivals[i + 1]); });
  for (auto& t : threads) t.join();
  for (const Arrivals& a : arrivals)
    if (!a.error.empty()) {
      std::cerr << "herd-ctl: " << a.error << "\n";
      return kUnreachable;
    }
  const double interval_ms = arrivals[0].snapshot_rate > 0 ? 1000.0 / arrivals[0].snapshot_rate : 0;
  std::cout << "{\"snapshot_interval_ms\":" << format_number(interval_ms)
            << ",\"server_snapshots\":" << arrivals[0].at.size() << ",\"relays\":[";
  for (std::size_t i = 0; i < relays.size(); ++i) {
    std::vector<double> added;
    for (const auto& [tick, when] : arrivals[i + 1].at)
      if (const auto it = arrivals[0].at.find(tick); it != arrivals[0].at.end())
        added.push_back(std::chrono::duration<double, std::milli>(when - it->second).count());
    char line[256];
    std::snprintf(
        line, sizeof line,
        R"({"snapshots":%zu,"common":%zu,"added_ms_p50":%.2f,"added_ms_p99":%.2f,"added_ms_max":%.2f})",
        arrivals[i + 1].at.size(), added.size(), percentile(added, 0.5), percentile(added, 0.99),
        added.empty() ? 0.0 : *std::max_element(added.begin(), added.end()));
    std::cout << (i ? "," : "") << line;
  }
  std::cout << "]}" << std::endl;
  return kOk;
}

}  // namespace herd::cli
