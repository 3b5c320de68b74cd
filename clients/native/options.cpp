#include "native/options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>

#include "protocol/local_server.hpp"

namespace herd::view {
namespace {

const char* const kDescription =
    "herd-view: the native viewer of a herd server's world, over WebSocket (ws:// or wss://).";

const char* const kFooter =
    "Mouse: left click or drag selects, right click sends the selection there (each keeping its\n"
    "place; Shift + right click queues it after its orders), wheel zooms, middle drag or arrow\n"
    "keys pan, F fits. A then right click: attack-move there (engaging other groups on the way).\n"
    "Q then right click: patrol there and back (Shift + right clicks: a route, sent by the last\n"
    "plain one or by letting go of Shift). C: stop. Esc: cancel A or Q, else quit.\n"
    "Keys R, B, T, G, P: the demo's formations.\n"
    "A server that is not up yet, or goes away, is tried again: 0.5 s, doubling to 5 s.\n"
    "Exit codes: 0 ok, 1 --frames got no snapshot (or the screenshot was not written), 2 bad "
    "flags.";

// The command line's one definition: parsing and --help both come from it.
struct Parser {
  CLI::App app{kDescription, "herd-view"};
  std::string url_text = "ws://localhost:8080/ws", role = "commander", format = "auto";
  double quantum = 1.0 / 64;

  explicit Parser(Options& o) {
    app.set_help_flag("-h,--help", "this text");
    app.footer(kFooter);
    app.add_option("--url", url_text, "the server's WebSocket endpoint, ws:// or wss://")
        ->envname("HERD_URL")
        ->capture_default_str()
        ->check([](const std::string& v) {
          auto u = parse_url(v);
          return std::holds_alternative<std::string>(u) ? std::get<std::string>(u) : std::string();
        });
    app.add_option("--role", role,
                   "viewer and spectator only watch; commander (operator) may also send commands; "
                   "player (with its --token) commands its team's agents and sees what they see")
        ->check(CLI::IsMember({"viewer", "commander", "operator", "player", "spectator"}))
        ->capture_default_str();
    app.add_option("--token", o.token, "the server's command token, if it has one")
        ->envname("HERD_COMMAND_TOKEN");
    app.add_option("--ca-file", o.ca_file, "wss://: also trust the certificates in this PEM file")
        ->envname("HERD_CA_FILE")
        ->check(CLI::ExistingFile);
    app.add_option(
           "--format", format,
           "snapshots: auto (binary while the world has more than 1,000 agents), binary or json")
        ->check(CLI::IsMember({"auto", "binary", "json"}))
        ->capture_default_str();
    app.add_option("--quantum", quantum,
                   "binary snapshots' position quantum, world units: 1, 0.5, 0.25, 0.125, 0.0625, "
                   "0.03125 or 0.015625 (coarser costs fewer bytes)")
        ->check([](const std::string& v) {
          try {
            return protocol::scale_of_quantum(std::stod(v)) ? std::string()
                                                            : std::string("not one of those");
          } catch (const std::exception&) {
            return std::string("not a number");
          }
        })
        ->capture_default_str();
    auto* frames =
        app.add_option("--frames", o.frames,
                       "render N frames once a snapshot came (waiting at most 10 s), then exit "
                       "(for tests and machines without a display)")
            ->check(CLI::Range(1, 1000000));
    app.add_option("--screenshot", o.screenshot, "with --frames: write the last frame to FILE.bmp")
        ->needs(frames);
    app.add_option("--width", o.width, "window width in pixels")
        ->check(CLI::Range(64, 8192))
        ->capture_default_str();
    app.add_option("--height", o.height, "window height in pixels")
        ->check(CLI::Range(64, 8192))
        ->capture_default_str();
  }
};

}  // namespace

std::variant<Url, std::string> parse_url(const std::string& text) {
  auto url = protocol::parse_ws_url(text);
  if (auto* why = std::get_if<std::string>(&url)) return "bad --url '" + text + "': " + *why;
  return std::get<Url>(std::move(url));
}

std::variant<Options, std::string> parse_options(const std::vector<std::string>& args) {
  Options o;
  Parser p(o);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    p.app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    o.help = true;
    return o;
  } catch (const CLI::ParseError& e) {
    return std::string(e.what());
  }
  o.url = std::get<Url>(parse_url(p.url_text));
  o.role = protocol::role_from_string(p.role).value_or(protocol::Role::commander);
  // No token given: a server on this machine left its own for its user's clients.
  if (o.token.empty() && o.role == protocol::Role::commander)
    if (auto local = protocol::local_token(o.url.host, o.url.port)) {
      o.token = std::move(local->token);
      o.url.host = std::move(local->host);  // the exact address the server holds
    }
  o.format = p.format == "binary" ? protocol::SnapshotFormat::binary
             : p.format == "json" ? protocol::SnapshotFormat::json
                                  : protocol::SnapshotFormat::automatic;
  o.scale = protocol::scale_of_quantum(p.quantum).value_or(protocol::kFinestScale);
  return o;
}

std::string usage() {
  Options o;
  return Parser(o).app.help();
}

}  // namespace herd::view
