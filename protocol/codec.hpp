// herd::protocol codec: JSON text <-> messages.
//
// Decoding never throws: it returns a message or an Error whose code and message say what was
// wrong, naming the field (PROTOCOL.md lists the codes). Encoding of server messages writes numbers
// with at most 3 decimals (the wire's precision), so a decoded snapshot equals the world within
// 0.0005 units.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "protocol/messages.hpp"

namespace herd::protocol {

template <class T>
using Decoded = std::variant<T, Error>;  // a value, or why there is none

// max_depth: how deeply the JSON may nest (the message object is level 1); deeper: too_deep.
Decoded<ClientMessage> decode_client(std::string_view text, int max_depth = kMaxJsonDepth);
Decoded<ServerMessage> decode_server(std::string_view text);

// Client to server (clients and tests use these).
std::string encode(const Hello& m);
std::string encode(const CommandMsg& m);
std::string encode(const Ping& m);
std::string encode(const Inspect& m);
std::string encode(const ControlMsg& m);
std::string encode(const SnapshotAck& m);
std::string encode(const KeyframeRequest& m);
std::string encode(const ViewportMsg& m);
std::string encode(const SessionsRequest& m);
std::string encode(const DensityRequest& m);
std::string_view to_string(SnapshotFormat format);
std::optional<SnapshotFormat> snapshot_format_from_string(std::string_view s);

// Server to client.
std::string encode(const Welcome& m);
// A welcome in two parts, so that one sent to many sessions is encoded once: the head (from `{`
// to `role`, the fields that differ between sessions) and the tail (the rest, the map included).
// encode_welcome_head(m) + encode_welcome_tail(m) == encode(m).
std::string encode_welcome_head(const Welcome& m);
std::string encode_welcome_tail(const Welcome& m);
std::string encode(const Snapshot& m);
std::string encode(const Ack& m);
std::string encode(const Error& m);
std::string encode(const Pong& m);
std::string encode(const SessionList& m);

// A snapshot's tick read from the start of its text, without decoding it: herd's servers write
// `type` then `tick` first. nullopt for any other text (decode it then).
std::optional<std::uint64_t> snapshot_tick(std::string_view text);

// The ack or error for a command the world applied.
std::string encode_outcome(const sim::CommandOutcome& outcome);

}  // namespace herd::protocol
