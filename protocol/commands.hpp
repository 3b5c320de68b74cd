// herd::protocol's commands on the wire: every `cmd` a command message may carry (PROTOCOL.md,
// "Commands"), each defined once in commands.cpp (its names, its strict reader and its writer).
// The codec reads and writes through these; the tests check PROTOCOL.md, herd-ctl and the fuzzer's
// dictionary against the names. Adding a sim::Command alternative without its definition there
// does not compile.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "protocol/fields.hpp"
#include "protocol/messages.hpp"

namespace herd::protocol {

// The `cmd` names of commands for the world (spawn, set_target, ...), in sim::Command's order.
std::vector<std::string_view> command_names();
// The `cmd` names of controls (pause, resume, step, ...), in Control's order.
std::vector<std::string_view> control_names();

namespace detail {

// The command or control named `cmd`, read strictly from the message's fields (errors thrown as
// the codec's); nullopt when `cmd` names none of that kind.
std::optional<sim::Command> read_world_command(Fields& f, std::string_view cmd);
std::optional<Control> read_control(Fields& f, std::string_view cmd);
// Its `cmd` and fields, into the message object j.
void write_command(json& j, const sim::Command& command);
void write_control(json& j, const Control& control);

}  // namespace detail
}  // namespace herd::protocol
