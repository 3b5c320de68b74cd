// herd-ctl: commands, watching and load generation over WebSocket, exactly as a third-party
// client talks to herd (issue 7). Exit codes: 0 the server acknowledged, 1 the server answered
// with an error (its code and message on stderr), 2 bad usage, 3 the server cannot be reached.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace herd::cli {

inline constexpr int kOk = 0, kServerError = 1, kUsage = 2, kUnreachable = 3;

struct Url {
  std::string host;
  std::uint16_t port = 8080;
  std::string path = "/ws";
};

// ws://HOST:PORT/PATH (port defaults to 80, path to /ws); nullopt if it is not such a URL.
std::optional<Url> parse_url(std::string_view text);

// The JSON `command` message (without seq) a subcommand's arguments describe, or an error
// sentence. `args` starts after the subcommand's name.
struct Built {
  std::string json;   // the command's fields, e.g. {"cmd":"spawn","count":3}
  std::string error;  // non-empty: bad usage
};
Built build_command(std::string_view subcommand, const std::vector<std::string>& args);

// The subcommands that send one command and wait for its answer.
bool is_command(std::string_view subcommand);

// Usage text for one subcommand, or the overview for an empty name.
std::string usage(std::string_view subcommand = {});

// herd-ctl load: N viewer connections reading snapshots for `seconds`; prints a report.
struct LoadOptions {
  int viewers = 0;
  double seconds = 0;
  bool binary = false;       // --format binary: binary snapshots, acknowledged
  bool decode_full = true;   // --decode full|header: decode every frame, or read its header only
  double view_w = 0, view_h = 0;  // --viewport W,H: each viewer's rectangle (binary only)
  double commands = 0;       // --commands RATE: a commander measuring command latency
  int threads = 1;           // --threads T: connections spread over T threads
  std::string token;         // the commander's token
};
// The options after "load", or an error sentence.
std::variant<LoadOptions, std::string> parse_load(const std::vector<std::string>& args);
int run_load(const Url& url, const LoadOptions& opts);

}  // namespace herd::cli
