// herd-ctl: one binary, subcommands; see ctl.hpp for the exit codes.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cli/ctl.hpp"
#include "common/ws_client.hpp"
#include "protocol/codec.hpp"

namespace {

using namespace herd;
using client::Millis;

int fail(int code, const std::string& message) {
  std::cerr << "herd-ctl: " << message << "\n";
  return code;
}

// Sends one command and waits for its answer: 0 on ack (printed), 1 on error (on stderr).
int send_command(client::WsClient& ws, const std::string& fields, Millis timeout) {
  std::string msg = R"({"type":"command","seq":1,)" + fields.substr(1);
  ws.send(msg);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    auto text = ws.receive(Millis(100));
    if (!text) continue;
    if (text->rfind(R"({"type":"ack","seq":1,)", 0) == 0) {
      std::cout << *text << "\n";
      return cli::kOk;
    }
    if (text->rfind(R"({"type":"error","seq":1,)", 0) == 0 || text->rfind(R"({"type":"error",)", 0) == 0) {
      const auto code_at = text->find(R"("code":")"), msg_at = text->find(R"("message":")");
      const std::string code = code_at == std::string::npos ? "error" : text->substr(code_at + 8, text->find('"', code_at + 8) - code_at - 8);
      const std::string message = msg_at == std::string::npos ? *text : text->substr(msg_at + 11, text->rfind('"') - msg_at - 11);
      return fail(cli::kServerError, code + ": " + message);
    }
  }
  return fail(cli::kUnreachable, "no answer within the timeout");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string url_text = "ws://localhost:8080/ws";
  double timeout_s = 10;
  const char* token_env = std::getenv("HERD_COMMAND_TOKEN");
  std::string token = token_env ? token_env : "";
  std::size_t i = 0;
  for (; i < args.size() && args[i].rfind("--", 0) == 0; ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::cout << cli::usage();
      return 0;
    }
    if (i + 1 >= args.size()) return fail(cli::kUsage, args[i] + " needs a value\n\n" + cli::usage());
    if (args[i] == "--url") url_text = args[++i];
    else if (args[i] == "--token") token = args[++i];
    else if (args[i] == "--timeout") {
      try { timeout_s = std::stod(args[++i]); } catch (...) { return fail(cli::kUsage, "--timeout takes seconds"); }
      if (!(timeout_s > 0 && timeout_s < 3600)) return fail(cli::kUsage, "--timeout takes seconds in (0, 3600)");
    } else return fail(cli::kUsage, "unknown option " + args[i] + "\n\n" + cli::usage());
  }
  if (i >= args.size()) return fail(cli::kUsage, "which subcommand?\n\n" + cli::usage());
  const std::string sub = args[i];
  const std::vector<std::string> rest(args.begin() + static_cast<long>(i) + 1, args.end());
  for (const auto& a : rest)
    if (a == "--help") {
      std::cout << cli::usage(sub);
      return 0;
    }
  const auto url = cli::parse_url(url_text);
  if (!url) return fail(cli::kUsage, "--url must look like ws://HOST:PORT/ws, not '" + url_text + "'");
  const Millis timeout(static_cast<long>(timeout_s * 1000));

  if (sub == "stats") {
    if (!rest.empty()) return fail(cli::kUsage, "stats takes no arguments");
    try {
      const auto r = client::http_request(url->host, url->port, "/metrics", "GET", timeout);
      if (r.status != 200) return fail(cli::kServerError, "/metrics answered " + std::to_string(r.status));
      std::cout << r.body;
      return cli::kOk;
    } catch (const client::ConnectionError& e) {
      return fail(cli::kUnreachable, e.what());
    }
  }
  if (sub == "load") {
    auto parsed = cli::parse_load(rest);
    if (auto* why = std::get_if<std::string>(&parsed)) return fail(cli::kUsage, *why + "\n" + cli::usage("load"));
    auto opts = std::get<cli::LoadOptions>(parsed);
    opts.token = token;
    return cli::run_load(*url, opts);
  }
  const bool watch = sub == "watch";
  cli::Built built;
  long count = -1;
  std::string role = "commander";
  if (watch) {
    for (std::size_t k = 0; k < rest.size(); k += 2) {
      if (k + 1 >= rest.size()) return fail(cli::kUsage, cli::usage("watch"));
      try {
        if (rest[k] == "--count") count = std::stol(rest[k + 1]);
        else if (rest[k] == "--role") role = rest[k + 1];
        else return fail(cli::kUsage, cli::usage("watch"));
      } catch (...) {
        return fail(cli::kUsage, cli::usage("watch"));
      }
    }
    if (count == 0 || count < -1 || (role != "viewer" && role != "commander")) return fail(cli::kUsage, cli::usage("watch"));
  } else if (cli::is_command(sub)) {
    built = cli::build_command(sub, rest);
    if (!built.error.empty()) return fail(cli::kUsage, built.error + "\n" + cli::usage(sub));
  } else {
    return fail(cli::kUsage, cli::usage(sub));
  }

  client::WsClient ws;
  try {
    ws.connect(url->host, url->port, url->path, timeout);
    const auto hello_role = role == "viewer" ? protocol::Role::viewer : protocol::Role::commander;
    ws.send(protocol::encode(protocol::Hello{protocol::kProtocolVersion, hello_role, "herd-ctl", token}));
    if (!watch) return send_command(ws, built.json, timeout);
    // watch: snapshots as JSON lines, until --count or the server goes away.
    for (long seen = 0; count < 0 || seen < count;) {
      auto text = ws.receive(timeout);
      if (!text) return fail(cli::kUnreachable, "no snapshot within the timeout");
      if (text->rfind(R"({"type":"snapshot")", 0) != 0) continue;
      std::cout << *text << "\n" << std::flush;
      ++seen;
    }
    return cli::kOk;
  } catch (const client::ConnectionError& e) {
    return fail(cli::kUnreachable, e.what());
  }
}
