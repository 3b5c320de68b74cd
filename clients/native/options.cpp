#include "native/options.hpp"

#include <charconv>
#include <cstdlib>

namespace herd::view {

const char* const kUsage =
    "usage: herd-view [--url ws://HOST:PORT/ws] [--role viewer|commander] [--token TOKEN]\n"
    "                 [--frames N --screenshot FILE.bmp] [--width W --height H] [--help]\n"
    "\n"
    "  --url         the server's WebSocket endpoint (default ws://localhost:8080/ws)\n"
    "  --role        viewer only watches; commander (default) may also send commands\n"
    "  --token       the server's command token, if it has one (or the variable HERD_COMMAND_TOKEN)\n"
    "  --format      snapshots: auto (default: binary while the world has more than 1,000 agents),\n"
    "                binary or json\n"
    "  --frames N    render N frames once a snapshot came (waiting at most 10 s), then exit\n"
    "                (for tests and machines without a display)\n"
    "  --screenshot  with --frames: write the last frame to FILE.bmp\n"
    "  --width, --height  window size in pixels (default 1024 x 768)\n"
    "\n"
    "Mouse: left click or drag selects, right click sends the selection there, wheel zooms,\n"
    "middle drag or arrow keys pan, F fits. Keys R, B, T, G, P: the demo's formations.\n"
    "A server that is not up yet, or goes away, is tried again: 0.5 s, doubling to 5 s.\n"
    "Exit codes: 0 ok, 1 --frames got no snapshot (or the screenshot was not written), 2 bad flags.\n";

namespace {

template <class T>
bool parse_int(const std::string& s, T lo, T hi, T& out) {
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi) return false;
  out = v;
  return true;
}

}  // namespace

std::variant<Url, std::string> parse_url(const std::string& text) {
  auto url = protocol::parse_ws_url(text);
  if (auto* why = std::get_if<std::string>(&url)) return "bad --url '" + text + "': " + *why;
  return std::get<Url>(std::move(url));
}

std::variant<Options, std::string> parse_options(const std::vector<std::string>& args) {
  Options o;
  if (const char* t = std::getenv("HERD_COMMAND_TOKEN")) o.token = t;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--help" || flag == "-h") {
      o.help = true;
      continue;
    }
    if (i + 1 >= args.size()) return "flag " + flag + " needs a value (or is unknown)";
    const std::string& value = args[++i];
    if (flag == "--url") {
      auto u = parse_url(value);
      if (auto* err = std::get_if<std::string>(&u)) return *err;
      o.url = std::get<Url>(u);
    } else if (flag == "--role") {
      if (value == "viewer") o.role = protocol::Role::viewer;
      else if (value == "commander") o.role = protocol::Role::commander;
      else return "bad --role '" + value + "': viewer or commander";
    } else if (flag == "--token") {
      o.token = value;
    } else if (flag == "--format") {
      if (value == "auto") o.format = protocol::SnapshotFormat::automatic;
      else if (value == "binary") o.format = protocol::SnapshotFormat::binary;
      else if (value == "json") o.format = protocol::SnapshotFormat::json;
      else return "bad --format '" + value + "': auto, binary or json";
    } else if (flag == "--frames") {
      if (!parse_int(value, 1, 1000000, o.frames)) return "bad --frames '" + value + "': an integer in [1, 1000000]";
    } else if (flag == "--screenshot") {
      o.screenshot = value;
    } else if (flag == "--width") {
      if (!parse_int(value, 64, 8192, o.width)) return "bad --width '" + value + "': an integer in [64, 8192]";
    } else if (flag == "--height") {
      if (!parse_int(value, 64, 8192, o.height)) return "bad --height '" + value + "': an integer in [64, 8192]";
    } else {
      return "unknown flag " + flag;
    }
  }
  if (!o.screenshot.empty() && o.frames == 0) return "--screenshot needs --frames N";
  return o;
}

}  // namespace herd::view
