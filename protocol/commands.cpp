// Every command's wire form, one definition each: Wire<T> gives the `cmd` names it is written
// and read under, its strict reader (each field checked, bounded and named in errors) and its
// writer. The codec dispatches through them (the end of this file); PROTOCOL.md's "Commands"
// describes the same fields. Longer than 400 lines on purpose: the whole command vocabulary in
// one unit, where the dispatch (Table) can see every definition and a missing one fails to build.
#include "protocol/commands.hpp"

#include "herd/sim/world.hpp"
#include "herd/sim/world_def.hpp"

#include <algorithm>
#include <limits>
#include <tuple>
#include <type_traits>

namespace herd::protocol {
namespace {

using namespace detail;

// ---- shared parts ------------------------------------------------------------------------------

std::uint8_t read_team(const json& v, const std::string& where) {
  return static_cast<std::uint8_t>(as_uint(v, where, sim::AgentDefLimits::kMaxTeam));
}

sim::Selection read_selection(const json& v, const std::string& where) {
  sim::Selection s;
  if (v.is_string() && v.get_ref<const std::string&>() == "all") {
    s.all = true;
    return s;
  }
  if (v.is_object()) {  // {"group": g}, {"team": t} and/or {"rect": {"x0","y0","x1","y1"}}
    Fields f(v, where);
    if (const json* g = f.find("group")) s.group = as_group(*g, f.name("group"));
    if (const json* t = f.find("team")) s.team = read_team(*t, f.name("team"));
    if (const json* r = f.find("rect")) {
      Fields rf(*r, f.name("rect"));
      const double x0 = as_number(rf.need("x0"), rf.name("x0"), -kHuge, kHuge),
                   y0 = as_number(rf.need("y0"), rf.name("y0"), -kHuge, kHuge);
      const double x1 = as_number(rf.need("x1"), rf.name("x1"), -kHuge, kHuge),
                   y1 = as_number(rf.need("y1"), rf.name("y1"), -kHuge, kHuge);
      rf.no_others();
      s.rect =
          sim::Rect{{std::min(x0, x1), std::min(y0, y1)}, {std::max(x0, x1), std::max(y0, y1)}};
    }
    f.no_others();
    if (!s.group && !s.rect && !s.team)
      bad(where, "must name a 'group', a 'team' or a 'rect' (or several)");
    return s;
  }
  if (!v.is_array())
    bad(where,
        "must be \"all\", an array of agent ids, {\"group\": g}, {\"team\": t} or {\"rect\": "
        "{...}}");
  if (v.empty() || v.size() > kMaxIdsPerCommand) bad(where, "must hold 1 to 10000 ids");
  s.ids = as_ids(v, where, kMaxIdsPerCommand);
  return s;
}

sim::TileCoord read_tile(const json& v, const std::string& where) {
  Fields f(v, where);
  const auto coord = [&](const char* k) {
    const json& c = f.need(k);
    if (!c.is_number_integer()) bad(f.name(k), "must be an integer");
    const auto i = c.get<std::int64_t>();
    if (i < 0 || i >= sim::TileMapLimits::kMaxSide) bad(f.name(k), "must be in [0, 1023]");
    return static_cast<std::int32_t>(i);
  };
  const sim::TileCoord t{coord("x"), coord("y")};
  f.no_others();
  return t;
}

// `movement`: its declared choices are sim::Movement's, in order.
sim::Movement read_movement(const Fields& f, const json& v) {
  return static_cast<sim::Movement>(f.choice(v, "movement"));
}

// An agent's avoidance priority ([0, 99]), layer and mask (uint32 bit sets), when given.
void read_avoidance_rules(Fields& f, std::optional<std::uint8_t>& priority,
                          std::optional<std::uint32_t>& layer, std::optional<std::uint32_t>& mask) {
  if (const json* p = f.find("priority"))
    priority = static_cast<std::uint8_t>(f.integer(*p, "priority"));
  if (const json* l = f.find("layer")) layer = static_cast<std::uint32_t>(f.integer(*l, "layer"));
  if (const json* m = f.find("mask")) mask = static_cast<std::uint32_t>(f.integer(*m, "mask"));
}

void write_avoidance_rules(json& o, const std::optional<std::uint8_t>& priority,
                           const std::optional<std::uint32_t>& layer,
                           const std::optional<std::uint32_t>& mask) {
  if (priority) o["priority"] = *priority;
  if (layer) o["layer"] = *layer;
  if (mask) o["mask"] = *mask;
}

// Health and weapon (spawn's agents, a count spawn, a source's template), when given. `hp` at most
// `max_hp` (the one given, else the world's: checked by the world, which knows its default). A
// source's agents start unhurt: it takes no `hp` (`takes_hp` false).
void read_combat(Fields& f, sim::CombatSettings& c, bool takes_hp = true) {
  if (const json* v = f.find("max_hp")) c.max_hp = f.number(*v, "max_hp");
  if (takes_hp)
    if (const json* v = f.find("hp")) c.hp = f.number(*v, "hp");
  if (const json* v = f.find("damage")) c.damage = f.number(*v, "damage");
  if (const json* v = f.find("range")) c.range = f.number(*v, "range");
  if (const json* v = f.find("cooldown")) c.cooldown = f.number(*v, "cooldown");
  if (c.hp && c.max_hp && *c.hp > *c.max_hp) bad("hp", "must be at most max_hp");
}

void write_combat(json& o, const sim::CombatSettings& c) {
  if (c.max_hp) o["max_hp"] = *c.max_hp;
  if (c.hp) o["hp"] = *c.hp;
  if (c.damage) o["damage"] = *c.damage;
  if (c.range) o["range"] = *c.range;
  if (c.cooldown) o["cooldown"] = *c.cooldown;
}

// One of spawn's `agents`, whose fields `item` declares.
sim::SpawnAgent read_spawn_agent(const json& v, const std::string& where,
                                 const std::vector<FieldSpec>& item) {
  Fields f(v, where);
  f.declared_by(&item);
  sim::SpawnAgent a;
  a.position = {f.number("x"), f.number("y")};
  if (const json* g = f.find("group")) a.group = static_cast<std::uint8_t>(f.integer(*g, "group"));
  if (const json* r = f.find("radius")) a.radius = f.number(*r, "radius");
  if (const json* s = f.find("max_speed")) a.max_speed = f.number(*s, "max_speed");
  if (const json* m = f.find("max_force")) a.max_force = f.number(*m, "max_force");
  if (const json* m = f.find("mass")) a.mass = f.number(*m, "mass");
  if (const json* t = f.find("target")) a.target = as_point(*t, f.name("target"));
  if (const json* m = f.find("movement")) a.movement = read_movement(f, *m);
  read_avoidance_rules(f, a.priority, a.layer, a.mask);
  if (const json* s = f.find("sight")) a.sight = f.number(*s, "sight");
  read_combat(f, a.combat);
  f.no_others();
  return a;
}

// A rectangle of the world as {"x","y","width","height"} (add_measurement's area, sources',
// exits'): its min and max corners. Width and height must be above 0.
std::pair<sim::Vec2, sim::Vec2> read_area(const json& v, const std::string& where) {
  Fields af(v, where);
  const sim::Vec2 min{as_number(af.need("x"), af.name("x"), -kHuge, kHuge),
                      as_number(af.need("y"), af.name("y"), -kHuge, kHuge)};
  const double width = as_number(af.need("width"), af.name("width"), 0, kHuge);
  const double height = as_number(af.need("height"), af.name("height"), 0, kHuge);
  af.no_others();
  if (!(width > 0) || !(height > 0)) bad(where, "must have a positive width and height");
  return {min, {min.x + width, min.y + height}};
}

json area_json(sim::Vec2 min, sim::Vec2 max) {
  return {{"x", min.x}, {"y", min.y}, {"width", max.x - min.x}, {"height", max.y - min.y}};
}

// `pathing` and `neighbours` (sources, set_pathing): one of their declared choices.
sim::Pathing read_pathing(const Fields& f, const json& v) {
  return *pathing_from_string(f.chosen(v, "pathing"));
}
std::uint8_t read_neighbours(const Fields& f, const json& v) {
  f.choice(v, "neighbours");  // 8 or 4, an unsigned number once it passes
  return static_cast<std::uint8_t>(v.get<std::uint64_t>());
}

// A source's agent template: a spawned agent's fields (group, radius, max_speed, max_force, mass,
// movement), what it does (behaviour, target) and how it finds its way (pathing, neighbours).
sim::AgentTemplate read_agent_template(Fields& f) {
  using K = sim::BehaviourKind;
  sim::AgentTemplate t;
  if (const json* g = f.find("group")) t.group = static_cast<std::uint8_t>(f.integer(*g, "group"));
  if (const json* r = f.find("radius")) t.radius = f.number(*r, "radius");
  if (const json* v = f.find("max_speed")) t.max_speed = f.number(*v, "max_speed");
  if (const json* m = f.find("max_force")) t.max_force = f.number(*m, "max_force");
  if (const json* m = f.find("mass")) t.mass = f.number(*m, "mass");
  if (const json* m = f.find("movement")) t.movement = read_movement(f, *m);
  read_avoidance_rules(f, t.priority, t.layer, t.mask);
  read_combat(f, t.combat, false);
  const json* target = f.find("target");
  const json* behaviour = f.find("behaviour");
  t.behaviour = target ? K::arrive : K::idle;
  if (behaviour) {
    t.behaviour = *behaviour_from_string(f.chosen(*behaviour, "behaviour"));
  }
  if (target && t.behaviour == K::idle) bad("target", "does not apply to idle");
  if (!target && t.behaviour != K::idle)
    bad("target", "is required for " + std::string(to_string(t.behaviour)));
  if (target) t.target = as_point(*target, "target");
  if (const json* p = f.find("pathing")) t.pathing = read_pathing(f, *p);
  if (const json* n = f.find("neighbours")) t.neighbours = read_neighbours(f, *n);
  return t;
}

void write_agent_template(json& j, const sim::AgentTemplate& t) {
  j["group"] = t.group;
  if (t.radius) j["radius"] = *t.radius;
  if (t.max_speed) j["max_speed"] = *t.max_speed;
  if (t.max_force) j["max_force"] = *t.max_force;
  if (t.mass) j["mass"] = *t.mass;
  if (t.movement == sim::Movement::kinematic) j["movement"] = "kinematic";
  j["behaviour"] = to_string(t.behaviour);
  if (t.behaviour != sim::BehaviourKind::idle) j["target"] = {{"x", t.target.x}, {"y", t.target.y}};
  j["pathing"] = to_string(t.pathing);
  j["neighbours"] = t.neighbours;
  write_avoidance_rules(j, t.priority, t.layer, t.mask);
  write_combat(j, t.combat);
}

// remove_measurement, remove_source, remove_exit: the id as `id`, as remove_obstacle, or under
// the name the ack gave it.
std::uint32_t read_removed_id(Fields& f, const char* named_as, const char* what) {
  const json* id = f.find("id");
  const json* named = f.find(named_as);
  if ((id != nullptr) == (named != nullptr))
    bad(f.name("id"),
        std::string("give the ") + what + "'s id as 'id' (or '" + named_as + "'), once");
  return as_u32(id ? *id : *named, f.name(id ? "id" : named_as));
}

std::optional<std::uint64_t> read_seed(Fields& f) {
  const json* v = f.find("seed");
  if (!v) return std::nullopt;
  return as_uint(*v, "seed", std::numeric_limits<std::uint64_t>::max());
}

json point_json(sim::Vec2 p) { return json{{"x", p.x}, {"y", p.y}}; }
json selection_json(const sim::Selection& s) {
  if (s.all) return json("all");
  if (s.group || s.rect || s.team) {
    json o = json::object();
    if (s.group) o["group"] = *s.group;
    if (s.team) o["team"] = *s.team;
    if (s.rect)
      o["rect"] = {{"x0", s.rect->min.x},
                   {"y0", s.rect->min.y},
                   {"x1", s.rect->max.x},
                   {"y1", s.rect->max.y}};
    return o;
  }
  return json(s.ids);
}

void write_behaviour(json& j, const sim::SetBehaviour& c) {
  const sim::Behaviour& b = c.behaviour;
  j["agents"] = selection_json(c.agents);
  j["behaviour"] = to_string(b.kind);
  if (b.agent != sim::kNoAgent) j["agent"] = b.agent;
  const sim::BehaviourTraits& kind = sim::traits(b.kind);
  if (c.target_tile)
    j["target_tile"] = json{{"x", c.target_tile->x}, {"y", c.target_tile->y}};
  else if (kind.takes_point && b.agent == sim::kNoAgent &&
           !(b.kind == sim::BehaviourKind::hold && c.hold_here))
    j["target"] = point_json(b.point);
  if (kind.takes_radius && (b.radius > 0 || kind.needs_radius)) j["radius"] = b.radius;
  if (kind.takes_response) j["response"] = to_string(b.response);
  using K = sim::BehaviourKind;
  const sim::BehaviourParams& p = c.params;
  if (b.kind == K::wander) {
    if (p.distance > 0) j["distance"] = p.distance;
    if (p.jitter > 0) j["jitter"] = p.jitter;
  } else if (b.kind == K::flock) {
    if (!p.has_target) j.erase("target");
    j["separation"] = p.separation;
    j["alignment"] = p.alignment;
    j["cohesion"] = p.cohesion;
  } else if (b.kind == K::follow_path) {
    json path = json::array();
    for (sim::Vec2 q : p.path) path.push_back(point_json(q));
    j["path"] = std::move(path);
    j["loop"] = p.loop;
  } else if (b.kind == K::follow && p.has_offset) {
    j["offset"] = point_json(p.offset);
  }
}

// The fields of wander, flock, follow_path and follow beyond target, agent and radius; each is
// refused for the kinds it does not apply to.
void read_behaviour_params(Fields& f, sim::BehaviourKind kind, std::string_view name,
                           sim::BehaviourParams& p) {
  using K = sim::BehaviourKind;
  const std::string for_kind = "does not apply to " + std::string(name);
  const auto only = [&](const char* field, bool applies) {
    const json* v = f.find(field);
    if (v && !applies) bad(field, for_kind);
    return v;
  };
  if (const json* v = only("distance", kind == K::wander)) p.distance = f.number(*v, "distance");
  if (const json* v = only("jitter", kind == K::wander)) p.jitter = f.number(*v, "jitter");
  if (const json* v = only("separation", kind == K::flock))
    p.separation = f.number(*v, "separation");
  if (const json* v = only("alignment", kind == K::flock)) p.alignment = f.number(*v, "alignment");
  if (const json* v = only("cohesion", kind == K::flock)) p.cohesion = f.number(*v, "cohesion");
  if (const json* v = only("loop", kind == K::follow_path)) {
    if (!v->is_boolean()) bad("loop", "must be true or false");
    p.loop = v->get<bool>();
  }
  const json* path = only("path", kind == K::follow_path);
  if (kind == K::follow_path) {
    if (!path) bad("path", "is required for follow_path");
    const FieldSpec& spec = f.spec("path");
    if (!path->is_array() || path->size() < *spec.min_items || path->size() > *spec.max_items)
      bad("path", "must be an array of " + std::to_string(*spec.min_items) + " to " +
                      std::to_string(*spec.max_items) + " points {\"x\", \"y\"}");
    for (std::size_t k = 0; k < path->size(); ++k)
      p.path.push_back(as_point((*path)[k], "path[" + std::to_string(k) + "]"));
  }
  if (const json* v = only("offset", kind == K::follow)) {
    p.offset = as_point(*v, "offset");
    p.has_offset = true;
  }
}

json spawn_agent_json(const sim::SpawnAgent& a) {
  json o{{"x", a.position.x}, {"y", a.position.y}, {"group", a.group}};
  if (a.radius) o["radius"] = *a.radius;
  if (a.max_speed) o["max_speed"] = *a.max_speed;
  if (a.max_force) o["max_force"] = *a.max_force;
  if (a.mass) o["mass"] = *a.mass;
  if (a.target) o["target"] = point_json(*a.target);
  if (a.movement == sim::Movement::kinematic) o["movement"] = "kinematic";
  write_avoidance_rules(o, a.priority, a.layer, a.mask);
  if (a.sight) o["sight"] = *a.sight;
  write_combat(o, a.combat);
  return o;
}

// ---- one definition per command ----------------------------------------------------------------

template <class T>
struct Wire;  // no definition: a command without its wire form does not compile

// The `i`th declared choice of `cmd`'s `field`: the writers write an enumeration's value by the
// index its reader returned.
std::string_view choice_name(std::string_view cmd, std::string_view field, std::size_t i) {
  return find_command(cmd)->field(field)->choices.at(i);
}

// An order to go to a point, under three names: set_target (arrive or seek), attack_move and
// patrol. `spread` says where each of several agents goes; `queue` appends it to their orders.
template <>
struct Wire<sim::SetTarget> {
  static constexpr std::string_view kNames[] = {"set_target", "attack_move", "patrol"};
  static sim::SetTarget read(Fields& f, std::string_view cmd) {
    using K = sim::BehaviourKind;
    sim::SetTarget c;
    c.agents = read_selection(f.need("agents"), "agents");
    c.behaviour = cmd == "attack_move" ? K::attack_move : cmd == "patrol" ? K::patrol : K::arrive;
    const json* target = f.find("target");
    const json* tile = f.find("target_tile");
    const json* points = cmd == "patrol" ? f.find("points") : nullptr;
    if ((target != nullptr) + (tile != nullptr) + (points != nullptr) != 1)
      bad("target", cmd == "patrol" ? "or 'target_tile' or 'points': exactly one must be given"
                                    : "or 'target_tile': exactly one must be given");
    if (target)
      c.target = as_point(*target, "target");
    else if (tile)
      c.target_tile = read_tile(*tile, "target_tile");
    else {
      const FieldSpec& spec = f.spec("points");
      if (!points->is_array() || points->size() < *spec.min_items ||
          points->size() > *spec.max_items)
        bad("points", "must be an array of " + std::to_string(*spec.min_items) + " to " +
                          std::to_string(*spec.max_items) + " points {\"x\",\"y\"}");
      for (std::size_t i = 0; i < points->size(); ++i) {
        const sim::Vec2 p = as_point((*points)[i], "points[" + std::to_string(i) + "]");
        if (i == 0)
          c.target = p;
        else
          c.points.push_back(p);
      }
    }
    if (cmd == "set_target") {
      if (const json* b = f.find("behaviour"))
        c.behaviour = *behaviour_from_string(f.chosen(*b, "behaviour"));
    }
    // Declared in sim::Spread's order; formation is set_target's alone.
    if (const json* v = f.find("spread"))
      c.spread = static_cast<sim::Spread>(f.choice(*v, "spread"));
    const bool formation = c.spread == sim::Spread::formation;
    if (formation && c.behaviour != K::arrive) bad("spread", "formation goes by arrive, not seek");
    if (const json* v = f.find("shape")) {
      if (!formation) bad("shape", "applies to spread \"formation\" only");
      c.shape = static_cast<sim::Shape>(f.choice(*v, "shape"));
    } else if (formation) {
      bad("shape", "is required for spread \"formation\"");
    }
    if (const json* v = f.find("spacing")) {
      if (c.spread == sim::Spread::point) bad("spacing", "does not apply to spread \"point\"");
      c.spacing = f.number(*v, "spacing");
    }
    if (const json* v = f.find("queue")) {
      if (!v->is_boolean()) bad("queue", "must be true or false");
      c.queue = v->get<bool>();
      if (c.queue && formation) bad("queue", "a formation is made at once: it cannot be queued");
    }
    if (const json* v = f.find("radius")) {
      if (cmd != "attack_move") bad("radius", "applies to attack_move only");
      c.radius = f.number(*v, "radius");
    }
    return c;
  }
  static void write(json& j, const sim::SetTarget& c) {
    using K = sim::BehaviourKind;
    j["cmd"] = c.behaviour == K::attack_move ? "attack_move"
               : c.behaviour == K::patrol    ? "patrol"
                                             : "set_target";
    j["agents"] = selection_json(c.agents);
    if (c.target_tile)
      j["target_tile"] = json{{"x", c.target_tile->x}, {"y", c.target_tile->y}};
    else if (!c.points.empty()) {
      json points = json::array({point_json(c.target)});
      for (sim::Vec2 p : c.points) points.push_back(point_json(p));
      j["points"] = std::move(points);
    } else
      j["target"] = point_json(c.target);
    if (c.behaviour == K::arrive || c.behaviour == K::seek)
      j["behaviour"] = c.behaviour == K::seek ? "seek" : "arrive";
    if (c.spread) j["spread"] = choice_name("set_target", "spread", static_cast<int>(*c.spread));
    if (c.spread == sim::Spread::formation)
      j["shape"] = choice_name("set_target", "shape", static_cast<int>(c.shape));
    if (c.spacing > 0) j["spacing"] = c.spacing;
    if (c.queue) j["queue"] = true;
    if (c.behaviour == K::attack_move && c.radius > 0) j["radius"] = c.radius;
  }
};

template <>
struct Wire<sim::Spawn> {
  static constexpr std::string_view kNames[] = {"spawn"};
  static sim::Spawn read(Fields& f, std::string_view) {
    sim::Spawn c;
    const json* count = f.find("count");
    const json* agents = f.find("agents");
    if ((count == nullptr) == (agents == nullptr))
      bad("count", "or 'agents': exactly one must be given");
    if (count) {
      // Past the server's per-spawn limit is limit_exceeded (the session checks it), not a bad
      // field: the message can only say it as a limit.
      c.count = static_cast<std::uint32_t>(f.integer(*count, "count"));
      if (const json* g = f.find("group"))
        c.group = static_cast<std::uint8_t>(f.integer(*g, "group"));
      read_avoidance_rules(f, c.priority, c.layer, c.mask);
      if (const json* s = f.find("sight")) c.sight = f.number(*s, "sight");
      read_combat(f, c.combat);
    } else {
      for (const char* field :
           {"priority", "layer", "mask", "sight", "max_hp", "hp", "damage", "range", "cooldown"})
        if (f.find(field)) bad(field, "applies to a count spawn: give each of 'agents' its own");
      const FieldSpec& spec = f.spec("agents");
      if (!agents->is_array() || agents->size() < *spec.min_items ||
          agents->size() > *spec.max_items)
        bad("agents", "must be an array of " + std::to_string(*spec.min_items) + " to " +
                          std::to_string(*spec.max_items) + " agents");
      for (std::size_t i = 0; i < agents->size(); ++i)
        c.agents.push_back(
            read_spawn_agent((*agents)[i], "agents[" + std::to_string(i) + "]", spec.item));
    }
    // Top level, as `group`: the team of every agent it makes.
    if (const json* t = f.find("team")) c.team = static_cast<std::uint8_t>(f.integer(*t, "team"));
    return c;
  }
  static void write(json& j, const sim::Spawn& c) {
    j["cmd"] = "spawn";
    if (c.team) j["team"] = *c.team;
    if (c.count > 0) {
      j["count"] = c.count;
      j["group"] = c.group;
      write_avoidance_rules(j, c.priority, c.layer, c.mask);
      if (c.sight) j["sight"] = *c.sight;
      write_combat(j, c.combat);
    } else {
      json agents = json::array();
      for (const sim::SpawnAgent& a : c.agents) agents.push_back(spawn_agent_json(a));
      j["agents"] = std::move(agents);
    }
  }
};

template <>
struct Wire<sim::SetBehaviour> {
  static constexpr std::string_view kNames[] = {"set_behaviour"};
  // set_behaviour: which of target/agent/radius/response each behaviour takes.
  static sim::SetBehaviour read(Fields& f, std::string_view) {
    using K = sim::BehaviourKind;
    sim::SetBehaviour c;
    c.agents = read_selection(f.need("agents"), "agents");
    const std::string_view name = f.chosen("behaviour");
    sim::Behaviour& b = c.behaviour;
    b.kind = *behaviour_from_string(name);
    const json* target = f.find("target");
    const json* tile = f.find("target_tile");
    const json* agent = f.find("agent");
    const json* radius = f.find("radius");
    const json* response = f.find("response");
    if (target && tile) bad("target", "and 'target_tile' cannot both be given");
    const sim::BehaviourTraits& traits = sim::traits(b.kind);
    const std::string for_kind = "does not apply to " + std::string(name);
    if ((target || tile) && !traits.takes_point) bad(target ? "target" : "target_tile", for_kind);
    if (agent && !(traits.point_or_agent || traits.needs_agent)) bad("agent", for_kind);
    if (radius && !traits.takes_radius) bad("radius", for_kind);
    if (response && !traits.takes_response) bad("response", for_kind);
    if (traits.point_or_agent && (target == nullptr && tile == nullptr) == (agent == nullptr))
      bad("target", "(or 'target_tile') or 'agent': exactly one must be given");
    if (traits.needs_agent && !agent) bad("agent", "is required for " + std::string(name));
    if (traits.needs_radius && !radius) bad("radius", "is required for " + std::string(name));
    // A point-taking kind that cannot act on an agent needs its point, except hold (here) and
    // flock (a flock that travels has one).
    if (traits.takes_point && !traits.point_or_agent && b.kind != K::hold && b.kind != K::flock &&
        !target && !tile)
      bad("target", "(or 'target_tile') is required for " + std::string(name));
    read_behaviour_params(f, b.kind, name, c.params);
    c.params.has_target = b.kind == K::flock && (target || tile);
    if (target) b.point = as_point(*target, "target");
    if (tile) c.target_tile = read_tile(*tile, "target_tile");
    if (agent) b.agent = static_cast<sim::AgentId>(f.integer(*agent, "agent"));  // 0 is none
    if (radius) b.radius = f.number(*radius, "radius");
    if (response) b.response = *behaviour_from_string(f.chosen(*response, "response"));
    c.hold_here = b.kind == K::hold && !target && !tile;
    return c;
  }
  static void write(json& j, const sim::SetBehaviour& c) {
    j["cmd"] = "set_behaviour";
    write_behaviour(j, c);
  }
};

template <>
struct Wire<sim::SetMovement> {
  static constexpr std::string_view kNames[] = {"set_movement"};
  static sim::SetMovement read(Fields& f, std::string_view) {
    sim::SetMovement c;
    c.agents = read_selection(f.need("agents"), "agents");
    c.movement = read_movement(f, f.need("movement"));
    return c;
  }
  static void write(json& j, const sim::SetMovement& c) {
    j["cmd"] = "set_movement";
    j["agents"] = selection_json(c.agents);
    j["movement"] = to_string(c.movement);
  }
};

template <>
struct Wire<sim::AddObstacle> {
  static constexpr std::string_view kNames[] = {"add_obstacle"};
  static sim::AddObstacle read(Fields& f, std::string_view) {
    const sim::Vec2 at{f.number("x"), f.number("y")};
    return sim::AddObstacle{at, f.number("radius")};
  }
  static void write(json& j, const sim::AddObstacle& c) {
    j["cmd"] = "add_obstacle";
    j["x"] = c.position.x;
    j["y"] = c.position.y;
    j["radius"] = c.radius;
  }
};

template <>
struct Wire<sim::RemoveObstacle> {
  static constexpr std::string_view kNames[] = {"remove_obstacle"};
  static sim::RemoveObstacle read(Fields& f, std::string_view) {
    return sim::RemoveObstacle{static_cast<std::uint32_t>(f.integer("id"))};
  }
  static void write(json& j, const sim::RemoveObstacle& c) {
    j["cmd"] = "remove_obstacle";
    j["id"] = c.id;
  }
};

template <>
struct Wire<sim::AddMeasurement> {
  static constexpr std::string_view kNames[] = {"add_measurement"};
  static sim::AddMeasurement read(Fields& f, std::string_view) {
    const json* line = f.find("line");
    const json* area = f.find("area");
    if ((line != nullptr) == (area != nullptr))
      bad(f.name(line ? "area" : "line"), "give exactly one of 'line' and 'area'");
    sim::AddMeasurement c;
    if (line) {
      if (!line->is_array() || line->size() != 2)
        bad(f.name("line"), "must be an array of two points {\"x\",\"y\"}");
      c.kind = sim::MeasurementKind::line;
      c.a = as_point((*line)[0], f.name("line") + "[0]");
      c.b = as_point((*line)[1], f.name("line") + "[1]");
      if (c.a == c.b) bad(f.name("line"), "must have two different points");
      return c;
    }
    c.kind = sim::MeasurementKind::area;
    std::tie(c.a, c.b) = read_area(*area, f.name("area"));
    return c;
  }
  static void write(json& j, const sim::AddMeasurement& c) {
    j["cmd"] = "add_measurement";
    if (c.kind == sim::MeasurementKind::line)
      j["line"] = json::array({{{"x", c.a.x}, {"y", c.a.y}}, {{"x", c.b.x}, {"y", c.b.y}}});
    else
      j["area"] = area_json(c.a, c.b);
  }
};

template <>
struct Wire<sim::RemoveMeasurement> {
  static constexpr std::string_view kNames[] = {"remove_measurement"};
  static sim::RemoveMeasurement read(Fields& f, std::string_view) {
    return sim::RemoveMeasurement{read_removed_id(f, "measurement", "measurement")};
  }
  static void write(json& j, const sim::RemoveMeasurement& c) {
    j["cmd"] = "remove_measurement";
    j["id"] = c.id;
  }
};

// A source: an area, a rate and a total, and the agent template's fields beside them.
template <>
struct Wire<sim::AddSource> {
  static constexpr std::string_view kNames[] = {"add_source"};
  static sim::AddSource read(Fields& f, std::string_view) {
    sim::AddSource c;
    std::tie(c.min, c.max) = read_area(f.need("area"), "area");
    c.rate = f.number("rate");
    c.total = static_cast<std::uint32_t>(f.integer("total"));
    c.agent = read_agent_template(f);
    return c;
  }
  static void write(json& j, const sim::AddSource& c) {
    j["cmd"] = "add_source";
    j["area"] = area_json(c.min, c.max);
    j["rate"] = c.rate;
    j["total"] = c.total;
    write_agent_template(j, c.agent);
  }
};

template <>
struct Wire<sim::RemoveSource> {
  static constexpr std::string_view kNames[] = {"remove_source"};
  static sim::RemoveSource read(Fields& f, std::string_view) {
    return sim::RemoveSource{read_removed_id(f, "source", "source")};
  }
  static void write(json& j, const sim::RemoveSource& c) {
    j["cmd"] = "remove_source";
    j["id"] = c.id;
  }
};

template <>
struct Wire<sim::AddExit> {
  static constexpr std::string_view kNames[] = {"add_exit"};
  static sim::AddExit read(Fields& f, std::string_view) {
    sim::AddExit c;
    std::tie(c.min, c.max) = read_area(f.need("area"), "area");
    return c;
  }
  static void write(json& j, const sim::AddExit& c) {
    j["cmd"] = "add_exit";
    j["area"] = area_json(c.min, c.max);
  }
};

template <>
struct Wire<sim::RemoveExit> {
  static constexpr std::string_view kNames[] = {"remove_exit"};
  static sim::RemoveExit read(Fields& f, std::string_view) {
    return sim::RemoveExit{read_removed_id(f, "exit", "exit")};
  }
  static void write(json& j, const sim::RemoveExit& c) {
    j["cmd"] = "remove_exit";
    j["id"] = c.id;
  }
};

// A wall: `points` (two for a segment, more for a polyline; with `closed`, three or more for a
// polygon), each {"x","y"}, no two consecutive ones equal. Whether they lie inside the world, and
// the world's limits on walls, are the world's to check.
template <>
struct Wire<sim::AddWall> {
  static constexpr std::string_view kNames[] = {"add_wall"};
  static sim::AddWall read(Fields& f, std::string_view) {
    sim::AddWall c;
    if (const json* v = f.find("closed")) c.closed = as_bool(*v, "closed");
    const json& points = f.need("points");
    const std::size_t least =
        c.closed ? sim::WallLimits::kMinClosedPoints : sim::WallLimits::kMinPoints;
    if (!points.is_array() || points.size() < least || points.size() > sim::WallLimits::kMaxPoints)
      bad("points", "must be an array of " + std::to_string(least) + " to " +
                        std::to_string(sim::WallLimits::kMaxPoints) + " points {\"x\",\"y\"}" +
                        (c.closed ? " (a closed wall needs 3)" : ""));
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::string where = "points[" + std::to_string(i) + "]";
      c.points.push_back(as_point(points[i], where));
      if (i > 0 && c.points[i] == c.points[i - 1]) bad(where, "is the same as the point before it");
    }
    if (c.closed && c.points.front() == c.points.back())
      bad("points", "of a closed wall must not repeat the first at the end: closed joins them");
    return c;
  }
  static void write(json& j, const sim::AddWall& c) {
    j["cmd"] = "add_wall";
    json points = json::array();
    for (sim::Vec2 p : c.points) points.push_back(point_json(p));
    j["points"] = std::move(points);
    if (c.closed) j["closed"] = true;
  }
};

template <>
struct Wire<sim::RemoveWall> {
  static constexpr std::string_view kNames[] = {"remove_wall"};
  static sim::RemoveWall read(Fields& f, std::string_view) {
    // `wall`, as the ack names it; `id`, as remove_obstacle.
    const json* id = f.find("id");
    const json* named = f.find("wall");
    if ((id != nullptr) == (named != nullptr))
      bad(f.name("wall"), "give the wall's id as 'wall' (or 'id'), once");
    return sim::RemoveWall{as_u32(id ? *id : *named, f.name(id ? "id" : "wall"))};
  }
  static void write(json& j, const sim::RemoveWall& c) {
    j["cmd"] = "remove_wall";
    j["wall"] = c.id;
  }
};

template <>
struct Wire<sim::SetAvoidance> {
  static constexpr std::string_view kNames[] = {"set_avoidance"};
  static sim::SetAvoidance read(Fields& f, std::string_view) {
    sim::SetAvoidance c;
    if (const json* m = f.find("mode")) c.mode = avoidance_mode_from_string(f.chosen(*m, "mode"));
    if (const json* v = f.find("personal_space")) c.personal_space = f.number(*v, "personal_space");
    if (const json* v = f.find("cardioid_exponent"))
      c.cardioid_exponent = f.number(*v, "cardioid_exponent");
    if (const json* v = f.find("preferred_side"))  // declared left, right: sim::Side's order
      c.preferred_side = static_cast<sim::Side>(f.choice(*v, "preferred_side"));
    if (const json* v = f.find("split_fix"))
      c.split_fix = f.chosen(*v, "split_fix") == "seed" ? sim::SplitFixMode::seed
                                                        : sim::SplitFixMode::sum_as_obstacle;
    if (const json* v = f.find("push_epsilon")) c.push_epsilon = f.number(*v, "push_epsilon");
    if (const json* v = f.find("crossing")) c.crossing = as_bool(*v, "crossing");
    if (const json* v = f.find("crossing_activation"))
      c.crossing_activation = f.number(*v, "crossing_activation");
    if (const json* v = f.find("lookahead")) c.lookahead = f.number(*v, "lookahead");
    if (const json* v = f.find("max_neighbours"))
      c.max_neighbours = static_cast<std::uint32_t>(f.integer(*v, "max_neighbours"));
    if (const json* v = f.find("time_gap")) c.time_gap = f.number(*v, "time_gap");
    if (const json* v = f.find("repulsion_strength"))
      c.repulsion_strength = f.number(*v, "repulsion_strength");
    if (const json* v = f.find("repulsion_range"))
      c.repulsion_range = f.number(*v, "repulsion_range");
    if (const json* v = f.find("wall_repulsion_strength"))
      c.wall_repulsion_strength = f.number(*v, "wall_repulsion_strength");
    if (const json* v = f.find("wall_repulsion_range"))
      c.wall_repulsion_range = f.number(*v, "wall_repulsion_range");
    if (c == sim::SetAvoidance{}) bad("mode", "or another avoidance setting must be given");
    return c;
  }
  static void write(json& j, const sim::SetAvoidance& c) {
    j["cmd"] = "set_avoidance";
    if (c.mode) j["mode"] = to_string(*c.mode);
    if (c.personal_space) j["personal_space"] = *c.personal_space;
    if (c.cardioid_exponent) j["cardioid_exponent"] = *c.cardioid_exponent;
    if (c.preferred_side)
      j["preferred_side"] = *c.preferred_side == sim::Side::left ? "left" : "right";
    if (c.split_fix)
      j["split_fix"] = *c.split_fix == sim::SplitFixMode::seed ? "seed" : "sum_as_obstacle";
    if (c.push_epsilon) j["push_epsilon"] = *c.push_epsilon;
    if (c.crossing) j["crossing"] = *c.crossing;
    if (c.crossing_activation) j["crossing_activation"] = *c.crossing_activation;
    if (c.lookahead) j["lookahead"] = *c.lookahead;
    if (c.max_neighbours) j["max_neighbours"] = *c.max_neighbours;
    if (c.time_gap) j["time_gap"] = *c.time_gap;
    if (c.repulsion_strength) j["repulsion_strength"] = *c.repulsion_strength;
    if (c.repulsion_range) j["repulsion_range"] = *c.repulsion_range;
    if (c.wall_repulsion_strength) j["wall_repulsion_strength"] = *c.wall_repulsion_strength;
    if (c.wall_repulsion_range) j["wall_repulsion_range"] = *c.wall_repulsion_range;
  }
};

template <>
struct Wire<sim::LoadMap> {
  static constexpr std::string_view kNames[] = {"load_map"};
  static sim::LoadMap read(Fields& f, std::string_view) {
    return sim::LoadMap{to_tile_map_def(read_map(f))};
  }
  static void write(json& j, const sim::LoadMap& c) {
    j["cmd"] = "load_map";
    j["width"] = c.map.width;
    j["height"] = c.map.height;
    j["tile_size"] = c.map.tile_size;
    json rows = json::array();
    for (std::int32_t y = 0; y < c.map.height; ++y) {
      std::string row;
      for (std::int32_t x = 0; x < c.map.width; ++x)
        row += c.map.cells[static_cast<std::size_t>(y) * static_cast<std::size_t>(c.map.width) +
                           static_cast<std::size_t>(x)] == sim::kBlocked
                   ? '#'
                   : '.';
      rows.push_back(row);
    }
    j["rows"] = std::move(rows);
  }
};

template <>
struct Wire<sim::ClearMap> {
  static constexpr std::string_view kNames[] = {"clear_map"};
  static sim::ClearMap read(Fields&, std::string_view) { return {}; }
  static void write(json& j, const sim::ClearMap&) { j["cmd"] = "clear_map"; }
};

template <>
struct Wire<sim::SetTiles> {
  static constexpr std::string_view kNames[] = {"set_tiles"};
  static sim::SetTiles read(Fields& f, std::string_view) {
    const json& tiles = f.need("tiles");
    if (!tiles.is_array() || tiles.empty() || tiles.size() > kMaxIdsPerCommand)
      bad("tiles", "must be an array of 1 to 10000 tiles");
    sim::SetTiles c;
    for (std::size_t i = 0; i < tiles.size(); ++i) {
      const std::string where = "tiles[" + std::to_string(i) + "]";
      Fields t(tiles[i], where);
      const sim::TileCoord xy = read_tile(json{{"x", t.need("x")}, {"y", t.need("y")}}, where);
      c.tiles.push_back({xy, as_bool(t.need("blocked"), t.name("blocked"))});
      t.no_others();
    }
    return c;
  }
  static void write(json& j, const sim::SetTiles& c) {
    j["cmd"] = "set_tiles";
    json tiles = json::array();
    for (const sim::TileChange& t : c.tiles)
      tiles.push_back({{"x", t.tile.x}, {"y", t.tile.y}, {"blocked", t.blocked}});
    j["tiles"] = std::move(tiles);
  }
};

template <>
struct Wire<sim::SetPathing> {
  static constexpr std::string_view kNames[] = {"set_pathing"};
  static sim::SetPathing read(Fields& f, std::string_view) {
    sim::SetPathing c;
    c.agents = read_selection(f.need("agents"), "agents");
    c.pathing = read_pathing(f, f.need("pathing"));
    if (const json* n = f.find("neighbours")) c.neighbours = read_neighbours(f, *n);
    return c;
  }
  static void write(json& j, const sim::SetPathing& c) {
    j["cmd"] = "set_pathing";
    j["agents"] = selection_json(c.agents);
    j["pathing"] = to_string(c.pathing);
    j["neighbours"] = c.neighbours;
  }
};

template <>
struct Wire<sim::SetGroup> {
  static constexpr std::string_view kNames[] = {"set_group"};
  static sim::SetGroup read(Fields& f, std::string_view) {
    sim::Selection agents = read_selection(f.need("agents"), "agents");
    return sim::SetGroup{std::move(agents), static_cast<std::uint8_t>(f.integer("group"))};
  }
  static void write(json& j, const sim::SetGroup& c) {
    j["cmd"] = "set_group";
    j["agents"] = selection_json(c.agents);
    j["group"] = c.group;
  }
};

// Slot assignments by name, in sim::SlotAssignment's order (the table declares which are taken).
constexpr std::string_view kAssignments[] = {"optimal", "keep_order", "shuffle", "bisection",
                                             "auto"};

template <>
struct Wire<sim::Form> {
  static constexpr std::string_view kNames[] = {"formation"};
  static sim::Form read(Fields& f, std::string_view) {
    sim::Form c;
    c.agents = read_selection(f.need("agents"), "agents");
    sim::FormationDef& d = c.def;
    const std::size_t shape_index = f.choice("shape");  // declared in sim::Shape's order
    const std::string_view shape = f.spec("shape").choices[shape_index];
    d.shape = static_cast<sim::Shape>(shape_index);
    d.centre = as_point(f.need("centre"), "centre");
    if (const json* v = f.find("spacing")) d.spacing = f.number(*v, "spacing");
    if (const json* v = f.find("facing")) d.facing = f.number(*v, "facing");
    const std::string for_shape = "does not apply to " + std::string(shape);
    if (const json* v = f.find("radius")) {
      if (d.shape != sim::Shape::circle) bad("radius", for_shape);
      d.radius = f.number(*v, "radius");
    }
    if (const json* v = f.find("orientation")) {
      if (d.shape != sim::Shape::line && d.shape != sim::Shape::lines)
        bad("orientation", for_shape);
      d.vertical = f.chosen(*v, "orientation") == "vertical";
    }
    if (const json* v = f.find("count")) {
      if (d.shape != sim::Shape::lines && d.shape != sim::Shape::block) bad("count", for_shape);
      d.count = static_cast<std::uint32_t>(f.integer(*v, "count"));
    } else if (d.shape == sim::Shape::block) {
      d.count = 1;
    }
    if (const json* v = f.find("columns")) {
      if (d.shape != sim::Shape::block) bad("columns", for_shape);
      d.columns = static_cast<std::uint32_t>(f.integer(*v, "columns"));
    }
    if (const json* v = f.find("regroup")) d.regroup = as_bool(*v, "regroup");
    if (const json* v = f.find("assignment")) {
      const std::string_view a = f.chosen(*v, "assignment");
      d.assignment = static_cast<sim::SlotAssignment>(
          std::find(std::begin(kAssignments), std::end(kAssignments), a) -
          std::begin(kAssignments));
    }
    return c;
  }
  static void write(json& j, const sim::Form& c) {
    const sim::FormationDef& d = c.def;
    j["cmd"] = "formation";
    j["agents"] = selection_json(c.agents);
    j["shape"] = choice_name("formation", "shape", static_cast<int>(d.shape));
    j["centre"] = point_json(d.centre);
    if (d.spacing > 0) j["spacing"] = d.spacing;
    j["facing"] = d.facing;
    if (d.shape == sim::Shape::circle) j["radius"] = d.radius;
    if (d.shape == sim::Shape::line || d.shape == sim::Shape::lines)
      j["orientation"] = d.vertical ? "vertical" : "horizontal";
    if (d.shape == sim::Shape::lines || d.shape == sim::Shape::block) j["count"] = d.count;
    if (d.shape == sim::Shape::block && d.columns) j["columns"] = d.columns;
    j["assignment"] = kAssignments[static_cast<int>(d.assignment)];
    if (d.regroup) j["regroup"] = true;
  }
};

// The demo's moves: one command type, a name per move (sim::DemoMove's order).
template <>
struct Wire<sim::Demo> {
  static constexpr std::string_view kNames[] = {"swap_places", "opposite", "exchange", "invert"};
  static sim::Demo read(Fields& f, std::string_view cmd) {
    sim::Demo c;
    c.agents = read_selection(f.need("agents"), "agents");
    c.move = static_cast<sim::DemoMove>(std::find(std::begin(kNames), std::end(kNames), cmd) -
                                        std::begin(kNames));
    if (const json* g = f.find("groups")) {
      if (c.move != sim::DemoMove::opposite) bad("groups", "applies to opposite only");
      c.groups = static_cast<std::uint32_t>(f.integer(*g, "groups"));
    }
    return c;
  }
  static void write(json& j, const sim::Demo& c) {
    j["cmd"] = kNames[static_cast<int>(c.move)];
    j["agents"] = selection_json(c.agents);
    if (c.move == sim::DemoMove::opposite) j["groups"] = c.groups;
  }
};

template <>
struct Wire<sim::Remove> {
  static constexpr std::string_view kNames[] = {"remove"};
  static sim::Remove read(Fields& f, std::string_view) {
    return sim::Remove{read_selection(f.need("agents"), "agents")};
  }
  static void write(json& j, const sim::Remove& c) {
    j["cmd"] = "remove";
    j["agents"] = selection_json(c.agents);
  }
};

template <>
struct Wire<sim::Stop> {
  static constexpr std::string_view kNames[] = {"stop"};
  static sim::Stop read(Fields& f, std::string_view) {
    return sim::Stop{read_selection(f.need("agents"), "agents")};
  }
  static void write(json& j, const sim::Stop& c) {
    j["cmd"] = "stop";
    j["agents"] = selection_json(c.agents);
  }
};

// ---- one definition per control ----------------------------------------------------------------

template <>
struct Wire<Pause> {
  static constexpr std::string_view kNames[] = {"pause"};
  static Pause read(Fields&, std::string_view) { return {}; }
  static void write(json& j, const Pause&) { j["cmd"] = "pause"; }
};

template <>
struct Wire<Resume> {
  static constexpr std::string_view kNames[] = {"resume"};
  static Resume read(Fields&, std::string_view) { return {}; }
  static void write(json& j, const Resume&) { j["cmd"] = "resume"; }
};

template <>
struct Wire<StepTicks> {
  static constexpr std::string_view kNames[] = {"step"};
  static StepTicks read(Fields& f, std::string_view) {
    StepTicks c;
    if (const json* t = f.find("ticks"))
      c.ticks = static_cast<std::uint32_t>(f.integer(*t, "ticks"));
    return c;
  }
  static void write(json& j, const StepTicks& c) {
    j["cmd"] = "step";
    j["ticks"] = c.ticks;
  }
};

template <>
struct Wire<Reset> {
  static constexpr std::string_view kNames[] = {"reset"};
  static Reset read(Fields& f, std::string_view) { return Reset{read_seed(f)}; }
  static void write(json& j, const Reset& c) {
    j["cmd"] = "reset";
    if (c.seed) j["seed"] = *c.seed;
  }
};

template <>
struct Wire<LoadScenario> {
  static constexpr std::string_view kNames[] = {"load_scenario"};
  static LoadScenario read(Fields& f, std::string_view) {
    LoadScenario c;
    c.name = std::string(as_string(f.need("name"), "name"));
    const FieldSpec& spec = f.spec("name");
    if (c.name.size() < *spec.min_length || c.name.size() > *spec.max_length)
      bad("name", "must be " + std::to_string(*spec.min_length) + " to " +
                      std::to_string(*spec.max_length) + " bytes");
    c.seed = read_seed(f);
    return c;
  }
  static void write(json& j, const LoadScenario& c) {
    j["cmd"] = "load_scenario";
    j["name"] = c.name;
    if (c.seed) j["seed"] = *c.seed;
  }
};

template <>
struct Wire<SetParam> {
  static constexpr std::string_view kNames[] = {"set_param"};
  static SetParam read(Fields& f, std::string_view) {
    SetParam c;
    if (const json* v = f.find("tick_rate")) c.tick_rate = f.number(*v, "tick_rate");
    if (const json* v = f.find("snapshot_rate")) c.snapshot_rate = f.number(*v, "snapshot_rate");
    if (!c.tick_rate && !c.snapshot_rate) bad("tick_rate", "or 'snapshot_rate' must be given");
    return c;
  }
  static void write(json& j, const SetParam& c) {
    j["cmd"] = "set_param";
    if (c.tick_rate) j["tick_rate"] = *c.tick_rate;
    if (c.snapshot_rate) j["snapshot_rate"] = *c.snapshot_rate;
  }
};

template <>
struct Wire<Kick> {
  static constexpr std::string_view kNames[] = {"kick"};
  static Kick read(Fields& f, std::string_view) { return Kick{f.integer("session")}; }
  static void write(json& j, const Kick& c) {
    j["cmd"] = "kick";
    j["session"] = c.session;
  }
};

// ---- dispatch over a variant's alternatives ----------------------------------------------------

template <class Variant>
struct Table;

template <class... Ts>
struct Table<std::variant<Ts...>> {
  using Variant = std::variant<Ts...>;
  static std::optional<Variant> read(Fields& f, std::string_view cmd) {
    if (const CommandSpec* spec = find_command(cmd)) f.declared_by(&spec->fields);
    std::optional<Variant> out;
    const auto try_one = [&]<class T>(Wire<T>*) {
      if (!out && std::find(std::begin(Wire<T>::kNames), std::end(Wire<T>::kNames), cmd) !=
                      std::end(Wire<T>::kNames))
        out = Wire<T>::read(f, cmd);
    };
    (try_one(static_cast<Wire<Ts>*>(nullptr)), ...);
    return out;
  }
  static void write(json& j, const Variant& v) {
    std::visit([&j](const auto& c) { Wire<std::decay_t<decltype(c)>>::write(j, c); }, v);
  }
  static std::vector<std::string_view> names() {
    std::vector<std::string_view> out;
    (out.insert(out.end(), std::begin(Wire<Ts>::kNames), std::end(Wire<Ts>::kNames)), ...);
    return out;
  }
};

}  // namespace

std::vector<std::string_view> command_names() { return Table<sim::Command>::names(); }
std::vector<std::string_view> control_names() { return Table<Control>::names(); }

namespace detail {

std::optional<sim::Command> read_world_command(Fields& f, std::string_view cmd) {
  return Table<sim::Command>::read(f, cmd);
}
std::optional<Control> read_control(Fields& f, std::string_view cmd) {
  return Table<Control>::read(f, cmd);
}
void write_command(json& j, const sim::Command& command) { Table<sim::Command>::write(j, command); }
void write_control(json& j, const Control& control) { Table<Control>::write(j, control); }

}  // namespace detail
}  // namespace herd::protocol
