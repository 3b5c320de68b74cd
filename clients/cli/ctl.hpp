// herd-ctl: commands, watching and load generation over WebSocket, exactly as a third-party
// client talks to herd. Exit codes: 0 the server acknowledged, 1 the server answered with an
// error (its code and message on stderr), 2 bad usage, 3 the server cannot be reached.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/command_table.hpp"
#include "protocol/messages.hpp"
#include "protocol/ws_url.hpp"

namespace CLI {
class App;
}

namespace herd::cli {

inline constexpr int kOk = 0, kServerError = 1, kUsage = 2, kUnreachable = 3;

// ws://HOST[:PORT][/PATH] (port 80 and path /ws when left out): protocol::parse_ws_url reads it.
using Url = protocol::WsUrl;

// The arguments' readers, shared by the subcommands: nullopt when the text is not one.
// SELECTION: all | group:G | rect:X0,Y0,X1,Y1 | group:G@X0,Y0,X1,Y1 | 1,2,3
std::optional<nlohmann::json> parse_selection(const std::string& text);
std::optional<double> parse_number(const std::string& text);
std::optional<nlohmann::json> parse_point(const std::string& text);  // X,Y -> {"x","y"}

// A number as people write it: 12 rather than 12.000000, 0.25 rather than 2.500000e-01.
std::string format_number(double v);

// `text` as it may be written to a terminal: what a server sends (messages, session rows, close
// reasons) is anyone's, and a control character in it (ESC, BEL, C1's CSI) would drive the
// operator's terminal: clear it, set its title. Each control character (C0, DEL, U+0080 to U+009F)
// is written \u00XX, which inside a JSON string means the same character; bytes that are not
// UTF-8 are written \xNN. With keep_newlines, '\n' stays (herd-ctl's own tables and messages).
std::string terminal_safe(std::string_view text, bool keep_newlines = false);

// What to say after a failed connection whose URL's path is not /ws: where herd serves WebSocket.
std::string url_hint(const Url& url);
// "did you mean --group (not --grop)?" for the first long flag on the command line that `sub`
// (or a parent) does not know but nearly spells; empty when there is none.
std::string flag_suggestion(const CLI::App& sub, int argc, char** argv);

// The protocol commands' subcommands, added to `app`. After parsing, `command` holds the
// command's fields ({"cmd": ...}) of whichever of them was given; empty if none was.
void add_command_subcommands(CLI::App& app, nlohmann::json& command);

// The command table's part of the subcommands (declared.cpp): every field of every wire command
// reachable from herd-ctl with no edit here. Each hand-made subcommand (`builds`: how each makes
// its command) gains an option --FIELD (dashes for underscores) for each field of its command that
// it does not spell its own way, and is also reachable by the command's wire name; a command with
// no hand-made subcommand at the top level gets one by its wire name, every field an option.
void add_declared_fields(
    CLI::App& app, nlohmann::json& command,
    const std::map<CLI::App*, std::function<nlohmann::json(CLI::App*)>>& builds);
// A field's value as herd-ctl's options write it, as the wire's JSON: SELECTION as above, X,Y
// for a point or tile, numbers, true|false, a choice, or JSON text for a list, an area or rows.
// An error message (for exit 2) when it is not one.
std::variant<nlohmann::json, std::string> parse_declared_value(const protocol::FieldSpec& field,
                                                               const std::string& text);

// How an answer from the server is shown: its JSON line as it came (`json`), or a line for people:
// "ok at tick 62: agents 49-51" / "unknown_agent: agent 99999 does not exist".
std::string describe_answer(const nlohmann::json& answer);

// A welcome as people read it (herd-ctl info): the server, the session's role, the world, its
// scenario, rates and limits, one line each. And the scenarios it names, one a line, the running
// one marked (herd-ctl scenarios).
std::string describe_welcome(const nlohmann::json& welcome);
std::string describe_scenarios(const nlohmann::json& welcome);
// The answer to `sessions` (herd-ctl sessions) as a table: a row per session (id, role, client,
// address, snapshot format, seconds connected, bytes and snapshots sent, snapshots dropped, round
// trip; "-" for what is not known yet), the asker's marked "(you)", then how many.
std::string describe_sessions(const nlohmann::json& sessions);
// herd-ctl why ID: agent `id` of a JSON snapshot as people read it, one line: its state, speed and
// place, and when stalled (PROTOCOL.md's `stall`) the reason, for how long and the agents
// responsible; "agent 127: moving at 0 u/s, stalled 12.5 s: blocked_by_standing (by 45, 46)".
// nullopt when the snapshot has no agent `id` (none such, or out of the asker's sight).
std::optional<std::string> describe_why(const nlohmann::json& snapshot, std::uint32_t id);

// herd-ctl load: N viewer connections reading snapshots for `seconds`; prints a report.
struct LoadOptions {
  int viewers = 0;
  double seconds = 0;
  bool binary = false;      // --format binary: binary snapshots, acknowledged
  bool decode_full = true;  // --decode full|header: decode every frame, or read its header only
  double view_w = 0, view_h = 0;  // --viewport W,H: each viewer's rectangle (binary only)
  std::uint8_t scale = protocol::kFinestScale;  // --quantum: binary positions in 1 / 2^scale unit
  double commands = 0;  // --commands RATE: a commander measuring command latency
  int threads = 1;      // --threads T: connections spread over T threads
  std::string token;    // the commander's token (and the viewers', when players)
  // --role: the viewers' role (viewer; spectator or player on a server with players)
  protocol::Role role = protocol::Role::viewer;
  bool as_json = false;  // --json: the report as one JSON line instead of sentences
};
int run_load(const Url& url, const LoadOptions& opts);

// herd-ctl hops: one viewer on the server (`server`) and one on each relay for `seconds` (`auto`
// format: binary frames, headers only, for a world of over 1,000 agents); prints each hop (its
// URL, whether it is a server or a relay, a relay's upstream state) and, per relay, how much later
// than on the server (`chain`: than on the hop before it, each relay's upstream) each snapshot
// arrived: a table, or with `as_json` one JSON line.
int run_hops(const Url& server, const std::vector<Url>& relays, double seconds, bool as_json,
             bool chain = false);

}  // namespace herd::cli
