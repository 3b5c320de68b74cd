// herd::protocol local server files: how herd-ctl and herd-view on the server's machine find its
// command token without anyone typing it, as Jupyter's clients find a server's. A server that
// makes (or is given) a token writes one JSON file, readable by its user alone, into a runtime
// directory only that user can enter. A client asked to reach the server without a token reads
// the file for that port, and uses its token only for the exact addresses the file names and only
// while the process that wrote it runs: another user may listen on any other loopback address at
// that port (`[::1]` beside a server on 127.0.0.1), or on the port once the server is gone.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace herd::protocol {

// The runtime directory: $HERD_RUNTIME_DIR, else $XDG_RUNTIME_DIR/herd, else
// $HOME/.local/share/herd/runtime; empty when none of them is set.
std::filesystem::path runtime_dir();

// The file of the server listening on `port`: server-<port>.json in runtime_dir().
std::filesystem::path local_server_file(std::uint16_t port);

// What the file holds: {"port": 8080, "addresses": ["127.0.0.1"],
// "url": "http://127.0.0.1:8080/#token=...", "token": "...", "pid": 1234}.
// A player of a server with players, as its runtime file names it: what `herd-ctl players` prints
// on the same machine (never the log).
struct LocalPlayer {
  std::string name;
  std::uint8_t team = 0;
  std::string url;  // the viewer's URL that plays as it (#role=player&token=...)
  friend bool operator==(const LocalPlayer&, const LocalPlayer&) = default;
};

struct LocalServer {
  std::uint16_t port = 0;
  // The literal addresses the server listens on at `port` (a wildcard's loopback address for its
  // family): the only ones its token may be sent to.
  std::vector<std::string> addresses;
  std::string url;  // the viewer's URL that commands
  std::string token;
  long pid = 0;
  std::vector<LocalPlayer> players;  // a server with players: each one's URL
};

// Whether the process `pid` runs and is this user's (kill(pid, 0) succeeds): a runtime file whose
// writer is gone is stale.
bool process_alive(long pid);

// Removes the runtime files in runtime_dir() whose server no longer runs (killed with SIGKILL, or
// the machine stopped), so that no client finds them. Returns how many it removed.
std::size_t remove_stale_local_servers();

// Writes the file (its directory made 0700, the file 0600, through a temporary file created
// exclusively and without following links, then renamed over the old one). Returns why it could
// not, or an empty string; `written` is its path.
std::string write_local_server(const LocalServer& server, std::filesystem::path& written);

// The token of the server on this machine at `port`, for a client whose URL names `host`, and
// the host to connect to with it. Only from a regular file of this user's whose writer still runs,
// and only when `host` is one of the file's addresses (compared as addresses: `::1` and
// `0:0:0:0:0:0:0:1` are one), or `localhost`, which is then replaced by the file's first address
// (localhost may resolve to `::1` where the server holds only 127.0.0.1).
struct LocalGrant {
  std::string token;
  std::string host;  // a literal address, without brackets
};
std::optional<LocalGrant> local_token(const std::string& host, std::uint16_t port);

// The players the runtime file of the server at `port` names, on the same terms as local_token
// (this user's file, its server running, `host` one of its addresses); nullopt when there is no
// such file, empty when it names none.
std::optional<std::vector<LocalPlayer>> local_players(const std::string& host, std::uint16_t port);

}  // namespace herd::protocol
