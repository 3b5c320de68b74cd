// herd::protocol local server files: how herd-ctl and herd-view on the server's machine find its
// command token without anyone typing it, as Jupyter's clients find a server's. A server that
// makes (or is given) a token writes one JSON file, readable by its user alone, into a runtime
// directory only that user can enter; a client asked to reach a loopback URL without a token
// reads the file for that port.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace herd::protocol {

// The runtime directory: $HERD_RUNTIME_DIR, else $XDG_RUNTIME_DIR/herd, else
// $HOME/.local/share/herd/runtime; empty when none of them is set.
std::filesystem::path runtime_dir();

// The file of the server listening on `port`: server-<port>.json in runtime_dir().
std::filesystem::path local_server_file(std::uint16_t port);

// What the file holds: {"port": 8080, "url": "http://127.0.0.1:8080/#token=...",
// "token": "...", "pid": 1234}.
struct LocalServer {
  std::uint16_t port = 0;
  std::string url;  // the viewer's URL that commands
  std::string token;
  long pid = 0;
};

// Writes the file (its directory made 0700, the file 0600, through a temporary file created
// exclusively and without following links, then renamed over the old one). Returns why it could
// not, or an empty string; `written` is its path.
std::string write_local_server(const LocalServer& server, std::filesystem::path& written);

// The token of the server on this machine at `port`, for a client whose URL names `host`: only
// a loopback host (localhost, 127.x.y.z, ::1), and only from a regular file of this user's.
std::optional<std::string> local_token(const std::string& host, std::uint16_t port);

}  // namespace herd::protocol
