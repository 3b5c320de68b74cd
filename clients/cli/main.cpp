// herd-ctl: one binary, subcommands (CLI11); see ctl.hpp for the exit codes.
#include <CLI/CLI.hpp>
#include <chrono>
#include <functional>
#include <iostream>
#include <string>
#include <variant>
#include <vector>

#include "cli/ctl.hpp"
#include "common/ws_client.hpp"
#include "protocol/codec.hpp"
#include "protocol/local_server.hpp"

namespace {

using namespace herd;
using client::Millis;
using nlohmann::json;

// Everything herd-ctl prints of what a server sent goes through cli::terminal_safe: a server (or
// whoever answers at the URL) is not trusted with the operator's terminal.
int fail(int code, const std::string& message) {
  std::cerr << "herd-ctl: " << cli::terminal_safe(message, true) << "\n";
  return code;
}

struct Output {
  bool as_json = false;  // the server's answers as they came, one JSON line each
  void answer(const std::string& text, const json& parsed) const {
    (parsed.value("type", "") == "error" ? std::cerr : std::cout)
        << cli::terminal_safe(as_json ? text : cli::describe_answer(parsed)) << "\n";
  }
};

// The first message `is_answer` accepts (an ack or error with the command's seq, a ping's pong),
// or a session-level error (no seq: a bad frame, a refused hello), which answers whatever was
// sent; nullopt when the timeout passes first. Snapshots and anything else are skipped.
std::optional<std::pair<std::string, json>> await_answer(
    client::WsClient& ws, const std::function<bool(const json&)>& is_answer, Millis timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    auto text = ws.receive(Millis(100));
    if (!text) continue;
    if (text->rfind(R"({"type":"snapshot")", 0) == 0) continue;
    json m = json::parse(*text, nullptr, false);
    if (m.is_discarded()) continue;
    if (is_answer(m) || (m.value("type", "") == "error" && !m.contains("seq")))
      return std::pair{*text, m};
  }
  return std::nullopt;
}

// Whether `m` answers the message `sent`: the same seq, or the pong of a ping with its id.
bool answers(const json& sent, const json& m) {
  if (sent.value("type", "") == "ping")
    return m.value("type", "") == "pong" && m.contains("id") && sent.contains("id") &&
           m["id"] == sent["id"];
  return sent.contains("seq") && m.contains("seq") && m["seq"] == sent["seq"];
}

// Says hello in `role` (by its wire name: "operator" is the commander's), with the token.
void hello(client::WsClient& ws, const cli::Url& url, Millis timeout, const client::TlsOptions& tls,
           const std::string& token, const std::string& role) {
  ws.connect(url, timeout, tls);
  protocol::Hello h{protocol::kProtocolVersion,
                    protocol::role_from_string(role).value_or(protocol::Role::commander),
                    "herd-ctl", token};
  h.says_operator = role == "operator";
  ws.send(protocol::encode(h));
}

// Sends one command and prints its answer: 0 on ack, 1 on error.
int send_command(client::WsClient& ws, json command, Millis timeout, const Output& out) {
  command["type"] = "command";
  command["seq"] = 1;
  ws.send(command.dump());
  const auto answer = await_answer(
      ws, [&](const json& m) { return answers(command, m); }, timeout);
  if (!answer) return fail(cli::kUnreachable, "no answer within the timeout");
  out.answer(answer->first, answer->second);
  return answer->second.value("type", "") == "ack" ? cli::kOk : cli::kServerError;
}

// herd-ctl sessions: asks for the server's sessions and prints them (a table, or the answer as it
// came with --json): 0 when listed, 1 when refused (a viewer: forbidden).
int list_sessions(client::WsClient& ws, Millis timeout, const Output& out) {
  const json request{{"type", "sessions"}, {"seq", 1}};
  ws.send(request.dump());
  const auto answer = await_answer(
      ws, [&](const json& m) { return answers(request, m); }, timeout);
  if (!answer) return fail(cli::kUnreachable, "no answer within the timeout");
  if (answer->second.value("type", "") != "sessions") {
    out.answer(answer->first, answer->second);
    return cli::kServerError;
  }
  std::cout << (out.as_json ? cli::terminal_safe(answer->first) + "\n"
                            : cli::terminal_safe(cli::describe_sessions(answer->second), true));
  return cli::kOk;
}

// herd-ctl send: a message a line from standard input (JSON), each command's and ping's answer
// printed as it comes. A command without a seq gets the next one. 0 when every command was
// acknowledged, 1 when any was refused, 2 for a line that is not a JSON object.
int send_lines(client::WsClient& ws, Millis timeout, const Output& out) {
  int status = cli::kOk;
  std::int64_t next_seq = 1;
  std::string line;
  for (std::size_t number = 1; std::getline(std::cin, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json m = json::parse(line, nullptr, false);
    if (m.is_discarded() || !m.is_object())
      return fail(cli::kUsage, "line " + std::to_string(number) + " is not a JSON object");
    // Not a message: the server's answer would carry no seq and be taken for a later line's.
    if (!m.contains("type") || !m["type"].is_string())
      return fail(cli::kUsage, "line " + std::to_string(number) +
                                   " is not a message: it has no \"type\" (see PROTOCOL.md)");
    const std::string type = m.value("type", "");
    if (type == "command" && !m.contains("seq")) m["seq"] = next_seq++;
    ws.send(m.dump());
    if (type != "ping" && !m.contains("seq")) continue;  // nothing answers it but an error
    const auto answer = await_answer(
        ws, [&](const json& r) { return answers(m, r); }, timeout);
    if (!answer)
      return fail(cli::kUnreachable,
                  "no answer to line " + std::to_string(number) + " within the timeout");
    out.answer(answer->first, answer->second);
    if (answer->second.value("type", "") == "error") status = cli::kServerError;
  }
  return status;
}

// herd-ctl why ID: says hello (`greet`), reads the next snapshot and prints agent `id` of it (for
// people, or its JSON object with --json): 0 when shown, 1 when the world has no such agent (or
// none the asker sees), 3 when no snapshot came in time (a paused world sends none: said so).
int explain_agent(client::WsClient& ws, const std::function<void()>& greet, std::uint32_t id,
                  Millis timeout, const Output& out) {
  greet();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool paused = false;  // as the last welcome said
  while (true) {
    const auto left =
        std::chrono::duration_cast<Millis>(deadline - std::chrono::steady_clock::now());
    std::optional<std::string> text;
    if (left.count() <= 0 || !(text = ws.receive(left)))
      return fail(cli::kUnreachable,
                  paused ? "no snapshot within the timeout: the world is paused (step or resume it)"
                         : "no snapshot within the timeout");
    if (text->rfind(R"({"type":"snapshot")", 0) != 0) {
      const json m = json::parse(*text, nullptr, false);
      if (m.is_discarded()) continue;
      if (m.value("type", "") == "error") out.answer(*text, m);
      if (m.value("type", "") == "welcome") paused = m.value("paused", false);
      continue;
    }
    const json snapshot = json::parse(*text, nullptr, false);
    if (snapshot.is_discarded()) return fail(cli::kUnreachable, "the snapshot is not JSON");
    const auto line = cli::describe_why(snapshot, id);
    if (!line)
      return fail(cli::kServerError, "unknown_agent: no agent " + std::to_string(id) +
                                         " in the world (or none you see)");
    if (out.as_json) {
      for (const json& a : snapshot["agents"])
        if (a.value("id", json()) == id) std::cout << cli::terminal_safe(a.dump()) << "\n";
    } else {
      std::cout << cli::terminal_safe(*line) << "\n";
    }
    return cli::kOk;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "herd-ctl: commands, watching and load generation for a herd server, over WebSocket.\n"
      "Exit codes: 0 acknowledged, 1 the server refused (its error on stderr), 2 bad usage,\n"
      "3 the server cannot be reached.",
      "herd-ctl"};
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand too
  std::string url_text = "ws://localhost:8080/ws", token;
  double timeout_s = 10;
  Output out;
  app.add_option("--url", url_text, "the server's WebSocket URL")
      ->envname("HERD_URL")
      ->capture_default_str();
  app.add_option("--timeout", timeout_s, "seconds to wait for the server")
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  app.add_option(
         "--token", token,
         "the server's command token (prefer the variable: ps shows flags); on this machine, "
         "read from the server's runtime file when not given")
      ->envname("HERD_COMMAND_TOKEN");
  bool player = false;
  app.add_flag("--player", player,
               "say hello as the player whose token --token (HERD_COMMAND_TOKEN) is: commands act "
               "on its team's agents, and it sees what they see");
  app.add_flag("--json", out.as_json,
               "print the server's answers as JSON lines, as they came (hops and load: the report "
               "as one JSON line)");
  client::TlsOptions tls;
  app.add_option("--ca-file", tls.ca_file, "wss://: also trust the certificates in this PEM file")
      ->envname("HERD_CA_FILE")
      ->check(CLI::ExistingFile);

  json command;
  cli::add_command_subcommands(app, command);

  long count = -1;
  std::string role = "commander";
  auto* watch = app.add_subcommand("watch", "print snapshots as JSON lines");
  watch->add_option("--count", count, "stop after this many")->check(CLI::Range(1L, 1L << 40));
  watch
      ->add_option("--role", role,
                   "say hello as a viewer, a commander (operator), a player or a spectator")
      ->check(CLI::IsMember({"viewer", "commander", "operator", "player", "spectator"}));
  auto* players_list = app.add_subcommand(
      "players",
      "the players of a server with players on this machine, each with the URL it plays at (from "
      "the server's runtime file: its operator's user only)");
  auto* stats = app.add_subcommand("stats", "print the server's /metrics");
  auto* send = app.add_subcommand(
      "send", "send JSON lines from standard input, print every answer (for scripts)");
  auto* info = app.add_subcommand(
      "info", "the server's welcome: world, scenario, rates, limits and this session's role");
  auto* scenarios = app.add_subcommand(
      "scenarios", "the scenarios the server can load (load_scenario), the running one marked");
  std::uint32_t why_id = 0;
  auto* why = app.add_subcommand(
      "why",
      "why agent ID is where it is: its state and speed, and when stalled the reason, for how "
      "long and the agents responsible (from the next snapshot)");
  why->add_option("ID", why_id, "the agent's id")->required()->check(CLI::Range(1u, 0xFFFFFFFFu));
  auto* sessions = app.add_subcommand(
      "sessions",
      "the server's sessions (commanders only): role, address, bytes and snapshots sent, drops, "
      "round trip; kick ID closes one");

  cli::LoadOptions load_opts;
  std::string format = "json", decode = "full", viewport;
  auto* load = app.add_subcommand(
      "load",
      "open N viewer connections and report what they receive; --commands: command latency too");
  load->add_option("--viewers", load_opts.viewers, "connections")
      ->required()
      ->check(CLI::Range(1, 10000));
  load->add_option("--duration", load_opts.seconds, "seconds")
      ->required()
      ->check(CLI::Range(0.001, 3600.0));
  load->add_option("--format", format, "json or binary snapshots")
      ->check(CLI::IsMember({"json", "binary"}));
  load->add_option("--decode", decode, "binary: decode full frames or headers only")
      ->check(CLI::IsMember({"full", "header"}));
  load->add_option("--viewport", viewport, "binary: each viewer's W,H rectangle");
  double quantum = 1.0 / 64;
  load->add_option("--quantum", quantum,
                   "binary: the position quantum, world units (1, 0.5, ... 0.015625)")
      ->capture_default_str();
  load->add_option("--commands", load_opts.commands,
                   "a commander sending this many commands a second")
      ->check(CLI::Range(0.001, 30.0));
  load->add_option("--threads", load_opts.threads, "threads the connections are spread over")
      ->check(CLI::Range(1, 64));
  std::string load_role = "viewer";
  load->add_option("--role", load_role,
                   "the viewers' role: viewer, spectator, or player (with that player's --token)")
      ->check(CLI::IsMember({"viewer", "spectator", "player"}));

  std::vector<std::string> relay_urls;
  double hop_seconds = 10;
  auto* hops = app.add_subcommand("hops",
                                  "the latency relays add: a viewer on the server (--url) and one "
                                  "on each relay, compared tick by tick; a row per hop");
  hops->add_option("--relay", relay_urls, "a relay's WebSocket URL (repeat for several)")
      ->required();
  hops->add_option("--duration", hop_seconds, "seconds")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  bool hop_chain = false;
  hops->add_flag("--chain", hop_chain,
                 "the relays are a chain, each the upstream of the next: each is measured against "
                 "the hop before it");

  // A first word that is no subcommand is refused before CLI11 would take "--help" after it.
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--url" || arg == "--timeout" || arg == "--token" || arg == "--ca-file") {
      ++i;
      continue;
    }
    if (arg.rfind("-", 0) == 0) continue;
    try {
      app.get_subcommand(arg);
    } catch (const CLI::OptionNotFound&) {
      return fail(cli::kUsage, "unknown subcommand '" + arg + "'\nusage: see 'herd-ctl --help'");
    }
    break;
  }
  try {
    app.parse(argc, argv);
    if (load->parsed()) {
      load_opts.binary = format == "binary";
      load_opts.decode_full = decode == "full";
      const auto scale = protocol::scale_of_quantum(quantum);
      if (!scale)
        throw CLI::ValidationError("--quantum",
                                   "one of 1, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625");
      load_opts.scale = *scale;
      if (!viewport.empty()) {
        const auto p = cli::parse_point(viewport);
        if (!p || !((*p)["x"] > 0 && (*p)["y"] > 0 && (*p)["x"] <= 1e7 && (*p)["y"] <= 1e7))
          throw CLI::ValidationError("--viewport", "W,H: sizes in (0, 10000000]");
        if (!load_opts.binary) throw CLI::ValidationError("--viewport", "needs --format binary");
        load_opts.view_w = (*p)["x"];
        load_opts.view_h = (*p)["y"];
      }
    }
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();  // the subcommand's, when it was asked of one
    return cli::kOk;
  } catch (const CLI::ParseError& e) {
    // The innermost subcommand given, by its whole path ("obstacle add"), and its options.
    std::string path;
    const CLI::App* inner = &app;
    for (const CLI::App* sub = app.get_subcommands().empty() ? nullptr
                                                             : app.get_subcommands().front();
         sub; sub = sub->get_subcommands().empty() ? nullptr : sub->get_subcommands().front()) {
      path += " " + sub->get_name();
      inner = sub;
    }
    std::string message = e.what();
    if (const std::string hint = cli::flag_suggestion(*inner, argc, argv); !hint.empty())
      message += "\n" + hint;
    return fail(cli::kUsage, message + "\nusage: see 'herd-ctl" + path + " --help'");
  }

  auto parsed_url = protocol::parse_ws_url(url_text);
  if (const auto* why = std::get_if<std::string>(&parsed_url))
    return fail(cli::kUsage,
                "--url must look like ws://HOST:PORT/ws, not '" + url_text + "': " + *why);
  cli::Url* url = &std::get<cli::Url>(parsed_url);
  // The load generator speaks plain TCP, as from beside the server.
  if (url->tls && load->parsed())
    return fail(cli::kUsage, "load needs a ws:// URL (it speaks no TLS), not " + url_text);
  const Millis timeout(static_cast<long>(timeout_s * 1000));
  if (players_list->parsed()) {
    // Never over the wire: the URLs hold the players' tokens, which only the operator's user
    // reads, from the file the server wrote for it.
    const auto players = protocol::local_players(url->host, url->port);
    if (!players)
      return fail(cli::kUnreachable,
                  "no server of this user's runs at " + url->host + ":" +
                      std::to_string(url->port) +
                      " on this machine (herd-ctl players reads its "
                      "runtime file: run it as the server's user, where the server runs)");
    if (players->empty()) {
      std::cout << "this server has no players (start it with --players FILE)\n";
      return cli::kOk;
    }
    if (out.as_json) {
      json list = json::array();
      for (const auto& p : *players)
        list.push_back({{"name", p.name}, {"team", p.team}, {"url", p.url}});
      std::cout << cli::terminal_safe(list.dump()) << "\n";
      return cli::kOk;
    }
    for (const auto& p : *players)
      std::cout << cli::terminal_safe(p.name + "  team " + std::to_string(p.team) + "  " + p.url)
                << "\n";
    return cli::kOk;
  }
  // No token given: a server on this machine left its own for its user's clients (the operator's:
  // never a player's), for the exact address it holds (`localhost` becomes that address).
  if (token.empty() && !player)
    if (auto local = protocol::local_token(url->host, url->port)) {
      token = std::move(local->token);
      url->host = std::move(local->host);
    }

  if (stats->parsed()) {
    try {
      // A server with a command token serves /metrics only with it.
      const std::string path = token.empty() ? "/metrics" : "/metrics?token=" + token;
      const auto r = client::http_request(*url, path, tls, "GET", timeout);  // https:// for wss://
      if (r.status != 200)
        return fail(cli::kServerError, "/metrics answered " + std::to_string(r.status));
      std::cout << cli::terminal_safe(r.body, true);
      return cli::kOk;
    } catch (const client::ConnectionError& e) {
      return fail(cli::kUnreachable, e.what());
    }
  }
  if (hops->parsed()) {
    std::vector<cli::Url> relays;
    for (const std::string& text : relay_urls) {
      const auto r = protocol::parse_ws_url(text);
      if (const auto* why = std::get_if<std::string>(&r))
        return fail(cli::kUsage,
                    "--relay must look like ws://HOST:PORT/ws, not '" + text + "': " + *why);
      relays.push_back(std::get<cli::Url>(r));
    }
    return cli::run_hops(*url, relays, hop_seconds, out.as_json, hop_chain);
  }
  if (load->parsed()) {
    load_opts.token = token;
    load_opts.as_json = out.as_json;
    load_opts.role = protocol::role_from_string(load_role).value_or(protocol::Role::viewer);
    return cli::run_load(*url, load_opts);
  }

  client::WsClient ws;
  try {
    if (watch->parsed()) {
      hello(ws, *url, timeout, tls, token, player && role == "commander" ? "player" : role);
      for (long seen = 0; count < 0 || seen < count; ++seen) {
        // The timeout bounds the whole wait for each snapshot: frames that are none (a server
        // streaming anything else) do not start it again.
        auto deadline = std::chrono::steady_clock::now() + timeout;
        std::optional<std::string> text;
        while (!text) {
          const auto left =
              std::chrono::duration_cast<Millis>(deadline - std::chrono::steady_clock::now());
          if (left.count() <= 0 || !(text = ws.receive(left)))
            return fail(cli::kUnreachable, "no snapshot within the timeout");
          // A delayed spectator's first snapshot comes the delay after its welcome: the wait
          // for it is the timeout plus the delay (world seconds, about wall seconds).
          if (seen == 0 && text->rfind(R"({"type":"welcome")", 0) == 0) {
            const json w = json::parse(*text, nullptr, false);
            const double delay = w.is_object() ? w.value("delay", 0.0) : 0.0;
            if (delay > 0 && delay < 1e6) {
              deadline += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                  std::chrono::duration<double>(delay));
              std::cerr << "herd-ctl: a spectator watches the world " << delay
                        << " s late: the first snapshot comes in about " << delay << " s\n";
            }
          }
          if (text->rfind(R"({"type":"snapshot")", 0) != 0) text.reset();
        }
        std::cout << cli::terminal_safe(*text) << "\n" << std::flush;
      }
      return cli::kOk;
    }
    if (info->parsed() || scenarios->parsed()) {
      hello(ws, *url, timeout, tls, token,
            player          ? "player"
            : token.empty() ? "viewer"
                            : "commander");
      // The welcome; an error before it (a refused token) is shown, and the welcome still comes.
      while (true) {
        const auto m = await_answer(
            ws, [](const json& r) { return r.value("type", "") == "welcome"; }, timeout);
        if (!m) return fail(cli::kUnreachable, "no welcome within the timeout");
        if (m->second.value("type", "") != "welcome") {
          out.answer(m->first, m->second);
          continue;
        }
        if (out.as_json)
          std::cout << cli::terminal_safe(m->first) << "\n";
        else
          std::cout << cli::terminal_safe(info->parsed() ? cli::describe_welcome(m->second)
                                                         : cli::describe_scenarios(m->second),
                                          true);
        return cli::kOk;
      }
    }
    if (why->parsed())
      return explain_agent(
          ws,
          [&] {
            hello(ws, *url, timeout, tls, token,
                  player          ? "player"
                  : token.empty() ? "viewer"
                                  : "commander");
          },
          why_id, timeout, out);
    hello(ws, *url, timeout, tls, token, player ? "player" : "commander");
    if (sessions->parsed()) return list_sessions(ws, timeout, out);
    if (send->parsed()) return send_lines(ws, timeout, out);
    return send_command(ws, command, timeout, out);
  } catch (const client::ConnectionError& e) {
    // The server's close code and reason when it sent one (a kick, a limit, a stop).
    std::string why = e.what();
    if (const int code = ws.close_code(); code != 0) {
      const std::string reason = ws.close_reason();
      why += " (close " + std::to_string(code) + (reason.empty() ? "" : ": " + reason) + ")";
    }
    return fail(cli::kUnreachable, why + cli::url_hint(*url));
  }
}
