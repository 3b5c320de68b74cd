// herd-ctl against a real herd-server: every subcommand's success and its error paths, with
// their exact exit codes (0 ack, 1 server error, 2 bad usage, 3 unreachable).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/ctl.hpp"
#include "cli/ctl_run.hpp"
#include "common/fake_ws_server.hpp"
#include "common/process.hpp"
#include "common/tls_proxy.hpp"
#include "protocol/commands.hpp"

namespace herd {
namespace {

using namespace herd::testing;

class CtlTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("herd_ctl_" + std::to_string(::getpid())));
    fs::create_directories(*dir_);
    // As a user runs it: a token made at start, which herd-ctl (run with the same runtime
    // directory) finds by itself, as it does on the user's machine.
    server_ = new Process({"--address", "127.0.0.1", "--port", "0", "--web-root", dir_->string(),
                           "--scenario", "default"},
                          *dir_ / "server.log", HERD_SERVER_BIN, Commands::as_user);
    port_ = listening_port(*dir_ / "server.log");
  }
  static void TearDownTestSuite() {
    delete server_;
    fs::remove_all(*dir_);
    delete dir_;
  }
  // herd-ctl with these arguments against the test's server (or `url`); stdout and stderr together.
  // With `input`, that text is its standard input.
  CtlRun ctl(std::vector<std::string> args, std::string url = {},
             std::optional<std::string> input = {}) {
    if (url.empty()) url = "ws://127.0.0.1:" + std::to_string(port_) + "/ws";
    return run_ctl(*dir_, runs_, std::move(args), url, input);
  }
  static inline fs::path* dir_ = nullptr;
  static inline Process* server_ = nullptr;
  static inline int port_ = -1;
  static inline int runs_ = 0;
};

TEST_F(CtlTest, CommandsAreAcknowledgedWithExitZero) {
  ASSERT_GT(port_, 0);
  CtlRun r = ctl({"--json", "spawn", "3", "--group", "4"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(R"("type":"ack")"), std::string::npos);
  EXPECT_NE(r.out.find(R"("agents":[49,50,51])"), std::string::npos) << r.out;
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"spawn", "--at", "100,100;120,100"},
           {"spawn", "5", "--team", "1", "--sight", "150"},
           {"stop", "team:1"},
           {"set_target", "49,50", "300", "200", "--spacing", "20"},
           {"add_obstacle", "--x", "700", "--y", "500", "--radius", "10"},
           {"target", "49,50", "300", "200"},
           {"target", "group:4", "300", "200", "--seek"},
           {"formation", "circle", "all", "--centre", "400,300"},
           {"formation", "block", "group:0", "--centre", "400,300", "--count", "2", "--regroup"},
           {"behaviour", "1", "pursue", "--agent", "2"},
           {"behaviour", "3", "flee", "--target", "50,50", "--radius", "100"},
           {"behaviour", "4", "wander", "--radius", "20", "--distance", "40", "--jitter", "100"},
           {"behaviour", "group:4", "flock", "--radius", "100", "--separation", "2", "--alignment",
            "1", "--cohesion", "0.5"},
           {"behaviour", "5", "follow_path", "--path", "100,100;300,120;250,400", "--loop"},
           {"behaviour", "6", "follow", "--agent", "5", "--offset", "-30,20"},
           {"behaviour", "7", "queue", "--target", "400,300"},
           {"remove", "51"},
           {"pause"},
           {"step", "4"},
           {"resume"},
           {"reset"},
           {"scenario", "demo32", "--seed", "3"},
       }) {
    r = ctl(args);
    EXPECT_EQ(r.status, 0) << args[0] << ": " << r.out;
  }
}

TEST_F(CtlTest, ServerErrorsExitOneWithTheServersMessage) {
  ASSERT_GT(port_, 0);
  CtlRun r = ctl({"target", "99999", "10", "10"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("unknown_agent: agent 99999 does not exist"), std::string::npos) << r.out;
  r = ctl({"spawn", "0"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("bad_field"), std::string::npos) << r.out;
  r = ctl({"scenario", "no_such_place"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("unknown_scenario"), std::string::npos) << r.out;
  r = ctl({"step"});
  EXPECT_EQ(r.status, 1) << "not paused";
  EXPECT_NE(r.out.find("not_paused"), std::string::npos) << r.out;
}

TEST_F(CtlTest, BadUsageExitsTwoAndSaysHow) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"target", "1", "abc", "5"},
           {"target", "1"},
           {"spawn", "many"},
           {"formation", "circle", "all"},
           {"step", "x"},
           {"warp"},
           {"load", "--viewers", "0", "--duration", "1"},
           {"load", "--viewers", "1", "--duration", "1", "--format", "xml"},
           {"load", "--viewers", "1", "--duration", "1", "--viewport", "10,10"},
           {"load", "--viewers", "1", "--duration", "1", "--format", "binary", "--quantum", "0.3"},
           {"load", "--viewers", "1", "--duration", "1", "--role", "commander"},
           {"watch", "--count", "zero"}}) {
    const CtlRun r = ctl(args);
    EXPECT_EQ(r.status, 2) << args[0] << ": " << r.out;
    EXPECT_NE(r.out.find("usage"), std::string::npos) << r.out;
  }
  EXPECT_EQ(ctl({"pause"}, "http://nowhere").status, 2);
}

TEST_F(CtlTest, EveryProtocolCommandHasASubcommand) {
  ASSERT_GT(port_, 0);
  ASSERT_EQ(ctl({"scenario", "empty"}).status, 0);
  const fs::path map = *dir_ / "map.txt";
  std::ofstream(map)
      << "; a comment, as the scenarios' maps have\n#####\n#...#\n#.#.#\n#...#\n#####\n";
  // Paused first, stepped by hand: commands are applied and answered between ticks all the same,
  // and no source spawns on the wall clock between two of them (the selections below find what
  // they expect).
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"pause"},
           {"spawn", "--at", "60,60;100,60;60,100;100,100", "--group", "1"},
           {"movement", "all", "kinematic"},
           {"obstacle", "add", "300", "300", "12"},
           {"obstacle", "remove", "1"},
           {"measure", "line", "400", "500", "400", "100"},
           {"measure", "area", "100", "100", "200", "150"},
           {"measure", "remove", "1"},
           {"source",   "add",      "100",         "100",         "50",         "50",       "2.5",
            "10",       "--target", "700,300",     "--behaviour", "seek",       "--group",  "3",
            "--radius", "6",        "--max-speed", "90",          "--movement", "kinematic"},
           {"source", "remove", "1"},
           {"exit", "add", "700", "250", "100", "100"},
           {"exit", "remove", "1"},
           {"wall", "add", "400,100;400,500"},
           {"wall", "add", "100,100", "300,120", "200,260", "--closed"},
           {"wall", "remove", "1"},
           {"avoidance", "--mode", "circle", "--personal-space", "2.5", "--crossing", "off",
            "--max-neighbours", "8"},
           {"avoidance", "--mode", "orca"},
           {"map", "load", map.string(), "--tile-size", "40"},
           {"step", "10"},  // agents on tiles the map blocks are moved off them
           {"map", "tiles", "2,1", "--blocked"},
           {"map", "tiles", "2,1", "--open"},
           {"pathing", "all", "astar", "--neighbours", "4"},
           {"source", "add", "40", "40", "120", "120", "1", "2", "--target", "60,60", "--pathing",
            "flow", "--neighbours", "4"},
           {"target", "all", "--tile", "3,3"},
           {"behaviour", "group:1", "hold", "--tile", "1,1"},
           {"map", "clear"},
           {"swap", "all"},
           {"opposite", "all", "--groups", "2"},
           {"invert", "rect:0,0,800,600"},
           {"group", "1,2", "2"},
           {"exchange", "1,2,3,4"},
           {"spawn", "--at", "200,60", "--priority", "0", "--layer", "2", "--mask", "4294967294"},
           {"spawn", "2", "--priority", "99", "--mask", "0"},
           {"param", "--tick-rate", "60", "--snapshot-rate", "20"},
       }) {
    const CtlRun r = ctl([&] {
      auto a = args;
      a.insert(a.begin(), "--json");
      return a;
    }());
    EXPECT_EQ(r.status, 0) << args.front() << (args.size() > 1 ? " " + args[1] : "") << ": "
                           << r.out;
    EXPECT_NE(r.out.find(R"("type":"ack")"), std::string::npos) << r.out;
  }
}

// The command herd-ctl builds from `args` (its subcommand and what follows), without sending it.
nlohmann::json built(std::vector<std::string> args) {
  CLI::App app;
  nlohmann::json command;
  cli::add_command_subcommands(app, command);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  app.parse(reversed);
  return command;
}

// Every `cmd` of the protocol's command table (protocol/commands.hpp) is what some herd-ctl
// subcommand sends: parsed here in process, the message each one builds.
TEST(CtlCommands, EveryProtocolCommandNameIsSentBySomeSubcommand) {
  std::set<std::string> sent;
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"target", "all", "10", "10"},
                                             {"spawn", "3"},
                                             {"remove", "all"},
                                             {"behaviour", "all", "idle"},
                                             {"movement", "all", "kinematic"},
                                             {"obstacle", "add", "1", "1", "5"},
                                             {"obstacle", "remove", "1"},
                                             {"avoidance", "--mode", "circle"},
                                             {"map", "load", HERD_MAP_FILE, "--tile-size", "40"},
                                             {"map", "clear"},
                                             {"map", "tiles", "1,1", "--blocked"},
                                             {"pathing", "all", "astar"},
                                             {"formation", "block", "all", "--centre", "5,5"},
                                             {"swap", "all"},
                                             {"exchange", "all"},
                                             {"invert", "all"},
                                             {"opposite", "all"},
                                             {"group", "all", "2"},
                                             {"pause"},
                                             {"resume"},
                                             {"step"},
                                             {"reset"},
                                             {"scenario", "empty"},
                                             {"param", "--tick-rate", "30"},
                                             {"kick", "3"},
                                             {"attack-move", "all", "5", "5"},
                                             {"patrol", "all", "5,5"},
                                             {"stop", "all"},
                                             {"measure", "line", "1", "2", "3", "4"},
                                             {"measure", "remove", "1"},
                                             {"source", "add", "1", "1", "5", "5", "2", "10"},
                                             {"source", "remove", "1"},
                                             {"exit", "add", "1", "1", "5", "5"},
                                             {"exit", "remove", "1"},
                                             {"wall", "add", "1,1;2,2"},
                                             {"wall", "remove", "1"}}) {
    nlohmann::json command;
    ASSERT_NO_THROW(command = built(args)) << args[0];
    ASSERT_TRUE(command.contains("cmd")) << args[0] << ": " << command.dump();
    sent.insert(command["cmd"].get<std::string>());
  }
  std::set<std::string> protocol;
  for (std::string_view n : protocol::command_names()) protocol.emplace(n);
  for (std::string_view n : protocol::control_names()) protocol.emplace(n);
  EXPECT_EQ(sent, protocol);
}

// spawn's --priority, --layer and --mask go into each agent of --at, or the count spawn; avoidance
// takes mode orca.
TEST(CtlCommands, SpawnCarriesAvoidanceRulesAndAvoidanceTakesOrca) {
  EXPECT_EQ(
      built({"spawn", "--at", "1,2;3,4", "--priority", "0", "--layer", "2", "--mask",
             "4294967295"})["agents"],
      nlohmann::json::parse(R"([{"x":1.0,"y":2.0,"priority":0,"layer":2,"mask":4294967295},)"
                            R"({"x":3.0,"y":4.0,"priority":0,"layer":2,"mask":4294967295}])"));
  const nlohmann::json count = built({"spawn", "5", "--priority", "99", "--mask", "0"});
  EXPECT_EQ(count["priority"], 99);
  EXPECT_EQ(count["mask"], 0);
  EXPECT_FALSE(count.contains("layer"));
  EXPECT_FALSE(built({"spawn", "5"}).contains("priority")) << "not given: the world's default";
  EXPECT_EQ(built({"avoidance", "--mode", "orca"})["mode"], "orca");
}

// Every field of the command table is an option: spawn's team and sight (and any field added to
// the table), checked against the field's range before anything is sent; a command is reachable by
// its wire name too, and one without a subcommand of its own gets one by that name.
TEST(CtlCommands, EveryDeclaredFieldIsAnOption) {
  EXPECT_EQ(built({"spawn", "5", "--team", "1", "--sight", "150"}),
            nlohmann::json::parse(R"({"cmd":"spawn","count":5,"team":1,"sight":150.0})"));
  EXPECT_EQ(built({"spawn", "--at", "1,2", "--team", "3"})["team"], 3);
  EXPECT_THROW(built({"spawn", "5", "--team", "64"}), CLI::ValidationError);
  EXPECT_THROW(built({"spawn", "5", "--sight", "-1"}), CLI::ValidationError);
  EXPECT_EQ(built({"stop", "team:2"})["agents"], nlohmann::json::parse(R"({"team":2})"));
  EXPECT_EQ(built({"set_target", "all", "1", "2"})["cmd"], "set_target");
  EXPECT_EQ(built({"attack_move", "all", "1", "2", "--radius", "50"})["radius"], 50.0);
  EXPECT_EQ(built({"add_obstacle", "--x", "1", "--y", "2", "--radius", "3"}),
            nlohmann::json::parse(R"({"cmd":"add_obstacle","x":1.0,"y":2.0,"radius":3.0})"));
  EXPECT_EQ(built({"add_measurement", "--area", R"({"x":1,"y":1,"width":2,"height":2})"})["area"],
            nlohmann::json::parse(R"({"x":1,"y":1,"width":2,"height":2})"));
  EXPECT_THROW(built({"add_obstacle", "--x", "1", "--y", "2"}), CLI::RequiredError);
  // Every field of every command is reachable from some subcommand.
  CLI::App app;
  nlohmann::json command;
  cli::add_command_subcommands(app, command);
  for (const protocol::CommandSpec& spec : protocol::command_table()) {
    std::string help;
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
      if (sub->check_name(std::string(spec.cmd))) help = sub->help();
    EXPECT_FALSE(help.empty()) << spec.cmd << " has no subcommand by its wire name";
  }
}

// herd-ctl wall add: points as separate arguments or joined by ';', --closed for a polygon.
TEST(CtlCommands, WallAddTakesItsPointsInOneArgumentOrMany) {
  const nlohmann::json joined = built({"wall", "add", "1,2;3,4", "5,6", "--closed"});
  EXPECT_EQ(joined.dump(),
            R"({"closed":true,"cmd":"add_wall","points":[{"x":1.0,"y":2.0},{"x":3.0,"y":4.0},)"
            R"({"x":5.0,"y":6.0}]})");
  EXPECT_FALSE(built({"wall", "add", "1,2", "3,4"}).contains("closed"));
  EXPECT_EQ(built({"wall", "remove", "7"}).dump(), R"({"cmd":"remove_wall","wall":7})");
  EXPECT_ANY_THROW(built({"wall", "add", "1,2;x"}));
}

TEST_F(CtlTest, AnswersReadAsPeopleWriteThem) {
  ASSERT_GT(port_, 0);
  ASSERT_EQ(ctl({"scenario", "empty"}).status, 0);
  CtlRun r = ctl({"spawn", "3"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^ok at tick \d+: agents (\d+)-(\d+)\n$)")))
      << r.out;
  r = ctl({"formation", "circle", "all", "--centre", "400,300", "--spacing", "12.5"});
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^ok at tick \d+: count 3, formation \d+\n$)")))
      << r.out;
  // The server's message as it wrote it: no escapes, no doubled prefix.
  r = ctl({"target", "99999", "10.5", "10"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "unknown_agent: agent 99999 does not exist\n");
  r = ctl({"watch", "--count", "zero"});
  EXPECT_EQ(r.out.find("herd-ctl: herd-ctl:"), std::string::npos) << r.out;
}

TEST_F(CtlTest, LoadCountsOnlyAcceptedSessionsAndRefusalsByReason) {
  // A server of its own that takes 3 sessions from one address.
  const fs::path log = *dir_ / "limited.log";
  Process limited({"--address", "127.0.0.1", "--port", "0", "--web-root", dir_->string(),
                   "--scenario", "demo32", "--max-sessions-per-address", "3"},
                  log);
  const int port = listening_port(log);
  ASSERT_GT(port, 0);
  const std::string url = "ws://127.0.0.1:" + std::to_string(port) + "/ws";
  CtlRun r = ctl({"load", "--viewers", "5", "--duration", "1"}, url);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("connected 3 refused 2 (too many sessions from this address: 2)"),
            std::string::npos)
      << r.out;
  // JSON snapshots: the agents counted from the records (demo32 has 32).
  EXPECT_NE(r.out.find(", 32 agents a snapshot"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('{'), std::string::npos) << "sentences for people, no JSON: " << r.out;
  // --json: the same report as one JSON line and nothing else.
  r = ctl({"--json", "load", "--viewers", "5", "--duration", "1"}, url);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(
      r.out.find(
          R"("connected":3,"refused":2,"refusals":{"too many sessions from this address":2})"),
      std::string::npos)
      << r.out;
  EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out;
}

TEST(CtlFormat, NumbersIdsAndSelectionsAsPeopleWriteThem) {
  EXPECT_EQ(cli::format_number(12), "12");
  EXPECT_EQ(cli::format_number(12.5), "12.5");
  EXPECT_EQ(cli::format_number(0.25), "0.25");
  EXPECT_EQ(cli::format_number(-3), "-3");
  EXPECT_EQ(cli::describe_answer(nlohmann::json::parse(
                R"({"type":"ack","seq":1,"tick":5,"agents":[1,2,3,7,9,10]})")),
            "ok at tick 5: agents 1-3,7,9,10");
  EXPECT_EQ(cli::describe_answer(nlohmann::json::parse(
                R"({"type":"error","seq":1,"code":"bad_field","message":"a \"b\""})")),
            "bad_field: a \"b\"");
  EXPECT_EQ(*cli::parse_selection("group:2@0,0,10,10"),
            nlohmann::json::parse(R"({"group":2,"rect":{"x0":0.0,"y0":0.0,"x1":10.0,"y1":10.0}})"));
  EXPECT_EQ(*cli::parse_selection("3,1,2"), nlohmann::json::parse("[3,1,2]"));
  EXPECT_FALSE(cli::parse_selection("group:300"));
  EXPECT_FALSE(cli::parse_selection("1,,2"));
  EXPECT_FALSE(cli::parse_point("1"));
}

// The operator's list as people read it: the fixture the protocol's tests pin, a row each.
TEST(CtlFormat, SessionsReadAsATable) {
  std::ifstream in(std::string(HERD_FIXTURE_DIR) + "/server/sessions.json");
  std::stringstream text;
  text << in.rdbuf();
  auto list = nlohmann::json::parse(text.str());
  EXPECT_EQ(cli::describe_sessions(list),
            "id  role       client      address          format  connected  sent    snapshots  "
            "dropped  rtt\n"
            "1   viewer     herd-web/1  127.0.0.1:53012  auto    84 s       2.9 MB  2520       3  "
            "      0.4 ms\n"
            "3   -          -           127.0.0.1:53040  -       1 s        0 B     0          0  "
            "      -\n"
            "4   commander  herd-ctl    127.0.0.1:53044  json    0 s        1.2 kB  0          0  "
            "      -       (you)\n"
            "3 sessions\n");
  list["omitted"] = 7;
  list["sessions"].erase(1);
  EXPECT_NE(cli::describe_sessions(list).find("\n2 sessions, 7 more not listed\n"),
            std::string::npos);
}

// herd-ctl sessions lists another herd-ctl (watching as a viewer) and itself; kick closes the
// watcher, which says so and exits 3; an id no session has exits 1 with its code.
TEST_F(CtlTest, SessionsListsAndKickClosesAnotherSession) {
  ASSERT_GT(port_, 0);
  const fs::path watch_log = *dir_ / "watcher.log";
  Process watcher({"--url", "ws://127.0.0.1:" + std::to_string(port_) + "/ws", "watch", "--role",
                   "viewer", "--count", "100000000"},
                  watch_log, HERD_CTL_BIN);
  nlohmann::json row, own;
  ASSERT_TRUE(wait_until(
      [&] {
        const CtlRun r = ctl({"--json", "sessions"});
        if (r.status != 0) return false;
        const auto list = nlohmann::json::parse(r.out, nullptr, false);
        if (list.is_discarded()) return false;
        for (const auto& s : list.value("sessions", nlohmann::json::array())) {
          if (s.value("you", false)) own = s;
          if (s.value("role", "") == "viewer" && s.value("client", "") == "herd-ctl" &&
              s.value("snapshots_sent", 0) > 0)
            row = s;
        }
        return !row.is_null();
      },
      std::chrono::milliseconds(15000)))
      << slurp(watch_log);
  EXPECT_EQ(own.value("role", ""), "commander");
  EXPECT_EQ(own.value("client", ""), "herd-ctl");
  EXPECT_EQ(row.value("format", ""), "json");
  EXPECT_EQ(row.value("address", "").rfind("127.0.0.1:", 0), 0u) << row.dump();
  const std::string id = std::to_string(row.value("id", 0));

  CtlRun r = ctl({"sessions"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("id  role ", 0), 0u) << r.out;
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex("\n" + id + " +viewer +herd-ctl +127\\.0\\.0\\.1:")))
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(" commander +herd-ctl .*\\(you\\)\n"))) << r.out;

  r = ctl({"kick", id});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^ok at tick \d+\n$)"))) << r.out;
  EXPECT_EQ(watcher.wait_exit(std::chrono::milliseconds(10000)), 3);
  const std::string watched = slurp(watch_log);
  const std::size_t said = watched.rfind("herd-ctl: ");
  ASSERT_NE(said, std::string::npos) << "the watcher said nothing on its way out";
  EXPECT_NE(watched.find("(close 4000: kicked by the operator)", said), std::string::npos)
      << watched.substr(said);

  r = ctl({"kick", "999999"});
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_EQ(r.out, "unknown_session: no session 999999 on this server\n");
  // A session welcomed as a viewer (a wrong token) is refused the list: exit 1, with why.
  r = ctl({"--token", "not-the-servers-token", "sessions"});
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("unauthorized"), std::string::npos) << r.out;
  EXPECT_EQ(ctl({"kick"}).status, 2) << "ID is required";
  EXPECT_EQ(ctl({"kick", "x"}).status, 2);
}

TEST_F(CtlTest, UnknownFlagsAndSubcommandsAreRefusedWithExitTwo) {
  ASSERT_GT(port_, 0);
  CtlRun r = ctl({"spawn", "3", "--grup", "2"});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--grup"), std::string::npos) << r.out;
  r = ctl({"nonsense", "--help"});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("unknown subcommand 'nonsense'"), std::string::npos) << r.out;
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"pause", "now"},
                                             {"behaviour", "all", "dance"},
                                             {"pathing", "all", "astar", "--neighbours", "6"},
                                             {"avoidance"},
                                             {"avoidance", "--mode", "rvo"},
                                             {"spawn", "3", "--priority", "100"},
                                             {"spawn", "3", "--mask", "-1"},
                                             {"map", "tiles", "1,1"},
                                             {"obstacle"},
                                             {"watch", "--role", "king"},
                                             {"--bogus", "pause"}}) {
    r = ctl(args);
    EXPECT_EQ(r.status, 2) << args[0] << ": " << r.out;
  }
  r = ctl({"spawn", "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--group"), std::string::npos) << r.out;
}

// The traps a newcomer fell into: a forgotten Y, a spawn past the limit, a missing positional
// argument of a nested subcommand, a mistyped flag, a URL without /ws, a line without "type".
TEST_F(CtlTest, CommonMistakesGetAnAnswerThatSaysWhatToDo) {
  ASSERT_GT(port_, 0);
  CtlRun r = ctl({"target", "all", "400"});
  EXPECT_EQ(r.status, 2) << "nothing sent to (400, 0): " << r.out;
  EXPECT_NE(r.out.find("usage: see 'herd-ctl target --help'"), std::string::npos) << r.out;
  r = ctl({"spawn", "5000"});
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("limit_exceeded"), std::string::npos) << r.out;
  r = ctl({"spawn", "0"});
  EXPECT_NE(r.out.find("must be 1 or more"), std::string::npos) << r.out;
  r = ctl({"obstacle", "add", "400", "300"});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("usage: see 'herd-ctl obstacle add --help'"), std::string::npos) << r.out;
  r = ctl({"spawn", "3", "--grop", "2"});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("did you mean --group"), std::string::npos) << r.out;
  r = ctl({"pause"}, "ws://127.0.0.1:" + std::to_string(port_) + "/");
  EXPECT_EQ(r.status, 3) << r.out;
  EXPECT_NE(r.out.find("hint: herd serves WebSocket at /ws: ws://127.0.0.1:" +
                       std::to_string(port_) + "/ws"),
            std::string::npos)
      << r.out;
  r = ctl({"send"}, {},
          "{\"cmd\":\"pause\"}\n"
          "{\"type\":\"command\",\"cmd\":\"resume\"}\n");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("line 1 is not a message: it has no \"type\""), std::string::npos) << r.out;
}

TEST_F(CtlTest, InfoAndScenariosReadTheWelcome) {
  ASSERT_GT(port_, 0);
  CtlRun r = ctl({"info"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("role commander"), std::string::npos)
      << "the runtime file's token: " << r.out;
  EXPECT_NE(r.out.find("world 800 x 600 units"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rates 60 ticks/s, 20 snapshots/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("max_agents"), std::string::npos) << r.out;
  r = ctl({"--json", "info"});
  EXPECT_EQ(r.out.rfind(R"({"type":"welcome")", 0), 0u) << r.out;
  r = ctl({"scenarios"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("demo32\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" (running)\n"), std::string::npos) << r.out;
  // Each name with what it shows, as its file says.
  EXPECT_NE(r.out.find("demo32\n  "), std::string::npos) << r.out;
}

TEST_F(CtlTest, SendTakesJsonLinesAndPrintsEveryAnswer) {
  ASSERT_GT(port_, 0);
  CtlRun r = ctl({"--json", "send"}, {},
                 "{\"type\":\"command\",\"cmd\":\"pause\"}\n"
                 "\n"
                 "{\"type\":\"ping\",\"id\":77}\n"
                 "{\"type\":\"command\",\"seq\":40,\"cmd\":\"step\",\"ticks\":2}\n"
                 "{\"type\":\"command\",\"cmd\":\"resume\"}\n");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out,
      std::regex(
          R"(^\{"type":"ack","seq":1,[^\n]*\}\n\{"type":"pong","id":77,[^\n]*\n\{"type":"ack","seq":40,[^\n]*\n\{"type":"ack","seq":2,)")))
      << r.out;
  r = ctl({"send"}, {}, "{\"type\":\"command\",\"cmd\":\"spawn\",\"count\":0}\n");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("bad_field"), std::string::npos) << r.out;
  r = ctl({"send"}, {}, "not json\n");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("line 1 is not a JSON object"), std::string::npos) << r.out;
}

// hops through a relay in front of the test's server: for people, a row per hop (its URL, server
// or relay, a relay's upstream state, the latency it adds); with --json, the same as one line.
TEST_F(CtlTest, HopsPrintsARowPerHopAndJsonWhenAsked) {
  ASSERT_GT(port_, 0);
  const fs::path log = *dir_ / "relay.log";
  Process relay({"--relay", "ws://127.0.0.1:" + std::to_string(port_) + "/ws", "--address",
                 "127.0.0.1", "--port", "0"},
                log, HERD_SERVER_BIN, Commands::as_user);
  const int relay_port = listening_port(log);
  ASSERT_GT(relay_port, 0) << slurp(log);
  const std::string server_url = "ws://127.0.0.1:" + std::to_string(port_) + "/ws";
  const std::string relay_url = "ws://127.0.0.1:" + std::to_string(relay_port) + "/ws";
  CtlRun r = ctl({"hops", "--relay", relay_url, "--duration", "1"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(^hop +role +upstream +snapshots +on both +added p50 +p99 +max\n)")))
      << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex("\n" + server_url + R"( +server +- +[1-9]\d* +- +- +- +-\n)")))
      << r.out;
  std::smatch row;
  ASSERT_TRUE(std::regex_search(
      r.out, row,
      std::regex(
          "\n" + relay_url +
          R"( +relay +connected +[1-9]\d* +([1-9]\d*) +([\d.]+) ms +([\d.]+) ms +([\d.]+) ms\n)")))
      << r.out;
  EXPECT_LE(std::stod(row[2]), std::stod(row[3])) << "p50 <= p99: " << r.out;
  EXPECT_LE(std::stod(row[3]), std::stod(row[4])) << "p99 <= max: " << r.out;
  EXPECT_NE(r.out.find("a snapshot every 50 ms\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('{'), std::string::npos) << "no JSON without --json: " << r.out;

  r = ctl({"--json", "hops", "--relay", relay_url, "--duration", "1"});
  EXPECT_EQ(r.status, 0) << r.out;
  const auto report = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << "one JSON line: " << r.out;
  EXPECT_EQ(report["snapshot_interval_ms"], 50) << r.out;
  EXPECT_EQ(report["server_url"], server_url) << r.out;
  EXPECT_EQ(report["server_role"], "server") << r.out;
  EXPECT_GT(report["server_snapshots"].get<int>(), 0) << r.out;
  ASSERT_EQ(report["relays"].size(), 1u) << r.out;
  const auto& hop = report["relays"][0];
  EXPECT_EQ(hop["url"], relay_url) << r.out;
  EXPECT_EQ(hop["role"], "relay") << r.out;
  EXPECT_EQ(hop["upstream"], "connected") << r.out;
  EXPECT_GT(hop["common"].get<int>(), 0) << r.out;
  EXPECT_LE(hop["added_ms_p50"].get<double>(), hop["added_ms_p99"].get<double>()) << r.out;

  // A relay that cannot be reached: exit 3, as for any server.
  EXPECT_EQ(ctl({"hops", "--relay", "ws://127.0.0.1:1/ws", "--duration", "0.5"}).status, 3);
}

// herd-ctl with a runtime directory of the test's own, against real servers and the test's fakes.
class CtlLocalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("herd_ctl_local_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::permissions(dir_, fs::perms::owner_all);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // herd-ctl run with the test's runtime directory (its log lands there).
  CtlRun ctl(std::vector<std::string> args) {
    const fs::path out = dir_ / ("ctl" + std::to_string(++runs_) + ".log");
    Process p(args, out, HERD_CTL_BIN);
    CtlRun r;
    r.status = p.wait_exit(std::chrono::milliseconds(20000));
    r.out = slurp(out);
    return r;
  }
  fs::path dir_;
  int runs_ = 0;
};

// The runtime file's token goes only to the exact address the file names, and only while the
// server that wrote it runs. Another local user may listen on [::1] at the port of a server on
// 127.0.0.1, or on the port of a server that was killed (SIGKILL leaves its file): a listener of
// the test's there sees herd-ctl's hello, never the token.
TEST_F(CtlLocalTest, ATokenGoesOnlyToTheAddressTheFileNamesWhileItsServerRuns) {
  const std::string token = "chosen-by-the-operator-for-ctl-1";
  auto server = std::make_unique<Process>(
      std::vector<std::string>{"--address", "127.0.0.1", "--port", "0", "--web-root", dir_.string(),
                               "--scenario", "empty", "--command-token", token},
      dir_ / "server.log", HERD_SERVER_BIN, Commands::as_user);
  const int port = listening_port(dir_ / "server.log");
  ASSERT_GT(port, 0) << slurp(dir_ / "server.log");
  const std::string p = std::to_string(port);
  const fs::path file = dir_ / ("server-" + p + ".json");
  const auto j = nlohmann::json::parse(slurp(file), nullptr, false);
  EXPECT_EQ(j.value("addresses", nlohmann::json()), nlohmann::json::array({"127.0.0.1"})) << j;
  EXPECT_EQ(j.value("pid", 0L), static_cast<long>(server->pid()));

  {
    // Someone else's listener on [::1] at the server's port: herd-ctl says hello there without
    // the token.
    FakeWsServer planted("::1", static_cast<std::uint16_t>(port));
    ASSERT_TRUE(planted.ok()) << planted.error();
    const CtlRun r = ctl({"--url", "ws://[::1]:" + p + "/ws", "--timeout", "1", "pause"});
    EXPECT_NE(r.status, 0) << r.out;
    EXPECT_NE(planted.received().find(R"("type":"hello")"), std::string::npos)
        << planted.received();
    EXPECT_EQ(planted.received().find(token), std::string::npos) << planted.received();
  }
  // The server's own address, and localhost (sent to the address the file names): commanded.
  for (const std::string host : {"127.0.0.1", "localhost"}) {
    const CtlRun r = ctl({"--url", "ws://" + host + ":" + p + "/ws", "--timeout", "10", "pause"});
    EXPECT_EQ(r.status, 0) << host << ": " << r.out;
    EXPECT_EQ(ctl({"--url", "ws://" + host + ":" + p + "/ws", "--timeout", "10", "resume"}).status,
              0);
  }

  // Killed: the file stays, and the port is anyone's. A listener there gets no token.
  server->signal(SIGKILL);
  EXPECT_EQ(server->wait_exit(), 128 + SIGKILL);
  server.reset();
  ASSERT_TRUE(fs::exists(file)) << "SIGKILL leaves the file";
  {
    FakeWsServer planted("127.0.0.1", static_cast<std::uint16_t>(port));
    ASSERT_TRUE(planted.ok()) << planted.error();
    const CtlRun r = ctl({"--url", "ws://127.0.0.1:" + p + "/ws", "--timeout", "1", "pause"});
    EXPECT_NE(r.status, 0) << r.out;
    EXPECT_NE(planted.received().find(R"("type":"hello")"), std::string::npos)
        << planted.received();
    EXPECT_EQ(planted.received().find(token), std::string::npos) << planted.received();
  }
  // A server started later removes the stale file of the one killed.
  Process next({"--address", "127.0.0.1", "--port", "0", "--web-root", dir_.string(), "--scenario",
                "empty", "--command-token", token},
               dir_ / "next.log", HERD_SERVER_BIN, Commands::as_user);
  ASSERT_GT(listening_port(dir_ / "next.log"), 0) << slurp(dir_ / "next.log");
  EXPECT_FALSE(fs::exists(file)) << "the stale file is removed at start";
}

// A server with players writes each player's URL to its runtime file, never to its log, and
// herd-ctl players prints them on the same machine; a spectator's watch waits out the delay for
// its first snapshot (it gave up after its 10 s timeout before).
TEST_F(CtlLocalTest, PlayersURLsAreInTheRuntimeFileAndASpectatorsWatchWaitsTheDelay) {
  const std::string red = "red+token/with&odd=bytes-0123";
  {
    std::ofstream(dir_ / "players.json")
        << R"({"players":[{"name":"red","team":1,"token":")" << red
        << R"("},{"name":"blue","team":2,"token":"blue-token-0123456789"}],
               "teams":[{"team":1,"colour":"#d04040"}]})";
  }
  Process server(
      {"--address", "127.0.0.1", "--port", "0", "--web-root", dir_.string(), "--scenario", "empty",
       "--players", (dir_ / "players.json").string(), "--spectator-delay", "3"},
      dir_ / "server.log", HERD_SERVER_BIN, Commands::as_user);
  const int port = listening_port(dir_ / "server.log");
  ASSERT_GT(port, 0) << slurp(dir_ / "server.log");
  const std::string url = "ws://127.0.0.1:" + std::to_string(port) + "/ws";
  const std::string log = slurp(dir_ / "server.log");
  EXPECT_EQ(log.find(red), std::string::npos) << "no player's token in the log";
  EXPECT_NE(log.find("herd-ctl players"), std::string::npos) << log;

  const CtlRun r = ctl({"--url", url, "players"});
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string page = "http://127.0.0.1:" + std::to_string(port) + "/";
  EXPECT_NE(r.out.find("red  team 1  " + page +
                       "#role=player&token=red%2Btoken%2Fwith%26odd%3Dbytes-0123"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("blue  team 2  " + page + "#role=player&token=blue-token-0123456789"),
            std::string::npos)
      << r.out;
  // Nothing of the sort for a port no server of this user's holds.
  EXPECT_EQ(ctl({"--url", "ws://127.0.0.1:1/ws", "players"}).status, 3);

  // The spectator's first snapshot comes the delay (3 s of world time) after its welcome: with a
  // timeout of 2 s the watch still gets it (and a world ticking at 60% of its rate still makes it).
  const CtlRun watch =
      ctl({"--url", url, "--timeout", "2", "watch", "--role", "spectator", "--count", "1"});
  EXPECT_EQ(watch.status, 0) << watch.out;
  EXPECT_NE(watch.out.find(R"({"type":"snapshot")"), std::string::npos) << watch.out;
  EXPECT_NE(watch.out.find("3 s late"), std::string::npos) << watch.out;
}

// A hostile server (or whatever answers at the URL) writes control characters into everything
// herd-ctl prints: session rows, an error's code and message, a snapshot's raw text, a close
// reason. herd-ctl writes each as \u00XX: no ESC, BEL or C1 CSI reaches the operator's terminal.
TEST_F(CtlLocalTest, AHostileServerCannotWriteControlCharactersToTheTerminal) {
  // ESC ] 0 ; title BEL (sets the window's title), ESC [ 2 J (clears the screen), C1 CSI.
  const std::string evil =
      "\x1b]0;owned\x07\x1b[2J\xc2\x9b"
      "2J";
  const nlohmann::json row = {{"id", 1},         {"role", evil},   {"client", evil},
                              {"address", evil}, {"format", evil}, {"connected_s", 1}};
  FakeWsServer hostile(
      "127.0.0.1", 0,
      {{}, [&](FakeWsServer::Stream& ws, const std::string& text) {
         const auto m = nlohmann::json::parse(text, nullptr, false);
         const std::string type = m.is_object() ? m.value("type", "") : "";
         ws.text(true);
         if (type == "hello" && m.value("client", "") == "herd-ctl" &&
             m.value("role", "") == "viewer") {
           // watch: a "snapshot" with a raw ESC in its text (no JSON string escapes it).
           ws.write(boost::asio::buffer(std::string(R"({"type":"snapshot","tick":1,"x":)") + evil +
                                        "}"));
         } else if (type == "sessions") {
           ws.write(boost::asio::buffer(
               nlohmann::json{{"type", "sessions"}, {"seq", 1}, {"sessions", {row}}}.dump()));
         } else if (type == "command" && m.value("cmd", "") == "pause") {
           ws.write(boost::asio::buffer(
               nlohmann::json{{"type", "error"}, {"seq", 1}, {"code", evil}, {"message", evil}}
                   .dump()));
         } else if (type == "command") {
           boost::beast::websocket::close_reason why(std::uint16_t{4000});
           why.reason = evil;
           ws.close(why);
         }
       }});
  ASSERT_TRUE(hostile.ok()) << hostile.error();
  const std::string url = "ws://127.0.0.1:" + std::to_string(hostile.port()) + "/ws";
  const std::vector<std::vector<std::string>> runs = {
      {"sessions"}, {"--json", "sessions"},
      {"pause"},    {"--json", "pause"},
      {"resume"},   {"watch", "--role", "viewer", "--count", "1"}};
  for (const auto& args : runs) {
    std::vector<std::string> all{"--url", url, "--timeout", "5", "--token", "t"};
    all.insert(all.end(), args.begin(), args.end());
    const CtlRun r = ctl(all);
    const std::string what = args.back() + " (" + std::to_string(r.status) + "): " + r.out;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << what;
    EXPECT_EQ(r.out.find('\x07'), std::string::npos) << what;
    EXPECT_EQ(r.out.find("\xc2\x9b"), std::string::npos) << what;
    // What was sent is shown, escaped.
    EXPECT_NE(r.out.find("\\u001b]0;owned\\u0007\\u001b[2J\\u009b2J"), std::string::npos) << what;
  }
  EXPECT_EQ(cli::terminal_safe("a\nb\tc\x7f\xff"), "a\\u000ab\\u0009c\\u007f\\xff");
  EXPECT_EQ(cli::terminal_safe("a\nb", true), "a\nb");
  EXPECT_EQ(cli::terminal_safe("caf\xc3\xa9 \xe2\x86\x92"), "caf\xc3\xa9 \xe2\x86\x92");
}

// watch --timeout bounds the whole wait for a snapshot: a server that streams frames that are no
// snapshot (binary garbage, other text) as fast as herd-ctl reads them does not hold it longer.
TEST_F(CtlLocalTest, WatchsTimeoutBoundsTheWholeWaitForASnapshot) {
  FakeWsServer streaming(
      "127.0.0.1", 0,
      {{}, [](FakeWsServer::Stream& ws, const std::string& text) {
         if (text.find(R"("type":"hello")") == std::string::npos) return;
         for (int i = 0;; ++i) {  // until herd-ctl goes (the write throws)
           ws.binary(i % 2 == 0);
           ws.write(boost::asio::buffer(i % 2 == 0 ? std::string("\x00\xff\x01 not a frame", 15)
                                                   : std::string(R"({"type":"snapshop"})")));
         }
       }});
  ASSERT_TRUE(streaming.ok()) << streaming.error();
  const std::string url = "ws://127.0.0.1:" + std::to_string(streaming.port()) + "/ws";
  const auto start = Clock::now();
  const CtlRun r =
      ctl({"--url", url, "--timeout", "2", "watch", "--role", "viewer", "--count", "1"});
  const auto took = Clock::now() - start;
  EXPECT_EQ(r.status, 3) << r.out;
  EXPECT_NE(r.out.find("no snapshot within the timeout"), std::string::npos) << r.out;
  EXPECT_LT(took, std::chrono::seconds(8)) << "the timeout is 2 s";
}

TEST_F(CtlTest, AnUnreachableServerExitsThree) {
  const CtlRun r = ctl({"pause"}, "ws://127.0.0.1:1/ws");
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.out.find("cannot connect"), std::string::npos) << r.out;
  EXPECT_EQ(ctl({"stats"}, "ws://127.0.0.1:1/ws").status, 3);
}

TEST_F(CtlTest, WssThroughATlsProxyWithItsCertificate) {
  ASSERT_GT(port_, 0);
  TlsProxy proxy(static_cast<std::uint16_t>(port_));
  const std::string url = "wss://localhost:" + std::to_string(proxy.port()) + "/ws";
  // The proxy's port has no runtime file, and coming through a proxy on loopback is no
  // permission: without the token its clients only watch.
  CtlRun r = ctl({"--ca-file", TlsProxy::ca_file(), "spawn", "--at", "20,20"}, url);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("unauthorized"), std::string::npos) << r.out;
  const std::string token =
      nlohmann::json::parse(slurp(*dir_ / ("server-" + std::to_string(port_) + ".json")))["token"];
  r = ctl({"--ca-file", TlsProxy::ca_file(), "--token", token, "spawn", "--at", "20,20"}, url);
  EXPECT_EQ(r.status, 0) << r.out;
  r = ctl({"watch", "--count", "1", "--ca-file", TlsProxy::ca_file()}, url);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(R"({"type":"snapshot")"), std::string::npos) << r.out;
  // Without the certificate: unreachable (3), and why.
  r = ctl({"pause"}, url);
  EXPECT_EQ(r.status, 3) << r.out;
  EXPECT_NE(r.out.find("certificate verify failed"), std::string::npos) << r.out;
  // stats over https:// to the same proxy, with the token (/metrics is the operator's: without
  // it, 401); without the certificate, unreachable.
  r = ctl({"stats", "--ca-file", TlsProxy::ca_file()}, url);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("401"), std::string::npos) << r.out;
  r = ctl({"stats", "--ca-file", TlsProxy::ca_file(), "--token", token}, url);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("herd_tick "), std::string::npos) << r.out;
  r = ctl({"stats"}, url);
  EXPECT_EQ(r.status, 3) << r.out;
  EXPECT_NE(r.out.find("certificate verify failed"), std::string::npos) << r.out;
  // A CA file that is not there is bad usage (2); load speaks no TLS and says so.
  EXPECT_EQ(ctl({"--ca-file", "/nonexistent/ca.pem", "pause"}, url).status, 2);
  r = ctl({"load", "--viewers", "1", "--duration", "1"}, url);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("ws://"), std::string::npos) << r.out;
}

TEST_F(CtlTest, WatchStatsAndLoadReport) {
  ASSERT_GT(port_, 0);
  CtlRun r = ctl({"watch", "--count", "3"});
  EXPECT_EQ(r.status, 0) << r.out;
  std::size_t lines = 0, at = 0;
  while ((at = r.out.find(R"({"type":"snapshot")", at)) != std::string::npos) ++lines, ++at;
  EXPECT_EQ(lines, 3u);
  r = ctl({"stats"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("herd_tick_duration_seconds_count"), std::string::npos);
  r = ctl({"--json", "load", "--viewers", "5", "--duration", "1"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"connected\":5,\"refused\":0,\"refusals\":{},\"failures\":0"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("age_p99_ms"), std::string::npos);
  // The machine-stall probe ran beside the viewers (every 5 ms, so about 200 wakes in a second).
  const auto report = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << r.out;
  EXPECT_GT(report.value("probe_wakes", 0), 10) << r.out;
  EXPECT_LE(report.value("probe_late_wakes", -1), report.value("probe_wakes", 0)) << r.out;
  EXPECT_GE(report.value("probe_late_wakes", -1), 0) << r.out;
  EXPECT_GT(report.value("probe_work_us_p50", 0.0), 0.0) << "the probe timed its fixed work";
  EXPECT_EQ(r.out.find("\"snapshots\":0,"), std::string::npos) << "the viewers received snapshots";
  // Binary viewers with viewports, acknowledging each frame, and a commander timing its commands.
  r = ctl({"--json", "load", "--viewers", "3", "--duration", "1.5", "--format", "binary",
           "--viewport", "300,200", "--quantum", "0.25", "--commands", "10"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"format\":\"binary\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"decode_errors\":0,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"gaps\":0,"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"commands\":0,"), std::string::npos)
      << "the commander's commands were acknowledged: " << r.out;
  EXPECT_GT(nlohmann::json::parse(r.out).value("ack_p50_ms", 0.0), 0.0) << r.out;
}

}  // namespace
}  // namespace herd
