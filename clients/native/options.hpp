// herd-view's command line: flags and the server URL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "protocol/messages.hpp"
#include "protocol/ws_url.hpp"

namespace herd::view {

// ws://HOST[:PORT][/PATH] or wss://... (protocol::parse_ws_url reads it).
using Url = protocol::WsUrl;

// --url's parts, or a message saying what is wrong with it.
std::variant<Url, std::string> parse_url(const std::string& text);

struct Options {
  Url url{"localhost", 8080, "/ws"};
  protocol::Role role = protocol::Role::commander;
  std::string token;    // the server's command token (--token or HERD_COMMAND_TOKEN)
  std::string ca_file;  // wss://: certificates to trust besides the system's (--ca-file)
  protocol::SnapshotFormat format = protocol::SnapshotFormat::automatic;  // --format
  std::uint8_t scale = protocol::kFinestScale;  // --quantum: binary positions in 1 / 2^scale unit
  int frames = 0;                               // > 0: render this many frames, then exit
  std::string screenshot;                       // with frames: write the last frame here (BMP)
  int width = 1024, height = 768;               // window size, pixels
  bool help = false;
};

// The options (CLI11: flags, or the variables HERD_URL, HERD_COMMAND_TOKEN and HERD_CA_FILE;
// unknown flags refused), or a message for stderr (the caller exits 2).
std::variant<Options, std::string> parse_options(const std::vector<std::string>& args);

// The --help text.
std::string usage();

}  // namespace herd::view
