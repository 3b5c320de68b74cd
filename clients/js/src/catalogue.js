// Generated from protocol/command_table.cpp by herd-catalogue: do not edit (scripts/catalogue rewrites it).
export default {
  "about": "Every cmd of a command message (protocol/PROTOCOL.md, 'command'), described for programs. Generated from protocol/command_table.cpp by herd-catalogue (scripts/catalogue rewrites it; a test checks it): the browser viewer's command palette and context menu, herd-ctl's subcommands and the JavaScript and Python clients' methods are built from it, and tests/protocol/command_catalogue_test.cpp checks it against the server's codec (each field's presence, kind, range and choices, and that its samples decode).",
  "kinds": {
    "selection": "which agents: \"all\", an array of agent ids, {\"group\": g}, {\"team\": t}, {\"rect\": {\"x0\",\"y0\",\"x1\",\"y1\"}} or several of those keys",
    "point": "{\"x\": number, \"y\": number}, world units, inside the world",
    "tile": "{\"x\": integer, \"y\": integer}, a tile of the map, each in [0, 1023]",
    "agent": "an agent id, an integer in [min, max]",
    "obstacle": "an obstacle id, an integer in [min, max]",
    "integer": "an integer in [min, max]",
    "number": "a finite number in [min, max] (min_exclusive: above min)",
    "boolean": "true or false",
    "enum": "one of choices",
    "string": "a string of min_length to max_length bytes; choices_from names a list of the welcome that holds the valid ones",
    "rows": "an array of strings, a tile map's rows: '#' blocked, '.' walkable",
    "area": "{\"x\", \"y\", \"width\", \"height\"}: a rectangle of the world, its corner nearest the origin and its size, world units",
    "list": "an array of min_items to max_items objects, each with the item's fields"
  },
  "presence": {
    "required": "always given",
    "optional": "may be left out (the server then uses default)",
    "exactly_one": "exactly one of the fields marked so is given",
    "at_most_one": "at most one of the fields marked so is given",
    "at_least_one": "at least one of the fields marked so is given"
  },
  "with": "a field's \"with\" names another field: it applies only when that one is given",
  "variants": "a command whose fields depend on one field's value (variants.field): each case names the fields it takes and their presence; a field named in some case and not in the chosen one is refused",
  "commands": [
    {
      "cmd": "set_target",
      "help": "send agents towards a point (arrive stops there, seek circles it); several keep their shape, crowd on the point or form up there",
      "fields": [
        {
          "name": "agents",
          "kind": "selection",
          "presence": "required",
          "sample": "all",
          "help": "which agents"
        },
        {
          "name": "target",
          "kind": "point",
          "presence": "exactly_one",
          "sample": {
            "x": 400.5,
            "y": 300.25
          },
          "help": "the point"
        },
        {
          "name": "target_tile",
          "kind": "tile",
          "presence": "exactly_one",
          "sample": {
            "x": 1,
            "y": 1
          },
          "help": "or the centre of this tile of the map"
        },
        {
          "name": "behaviour",
          "kind": "enum",
          "presence": "optional",
          "choices": [
            "arrive",
            "seek"
          ],
          "default": "arrive",
          "sample": "seek",
          "help": "arrive slows down and stops; seek runs at full speed and circles"
        },
        {
          "name": "spread",
          "kind": "enum",
          "presence": "optional",
          "choices": [
            "keep",
            "point",
            "formation"
          ],
          "default": "keep",
          "sample": "point",
          "help": "where each of several agents goes"
        },
        {
          "name": "shape",
          "kind": "enum",
          "presence": "optional",
          "choices": [
            "circle",
            "line",
            "lines",
            "block",
            "wedge"
          ],
          "sample": "wedge",
          "help": "the formation's layout"
        },
        {
          "name": "spacing",
          "kind": "number",
          "presence": "optional",
          "min": 0.01,
          "max": 10000,
          "sample": 30,
          "help": "units between neighbours; default from the largest radius"
        },
        {
          "name": "queue",
          "kind": "boolean",
          "presence": "optional",
          "default": false,
          "sample": true,
          "help": "after the agents' current orders, instead of replacing them"
        }
      ],
      "variants": {
        "field": "spread",
        "cases": [
          {
            "value": "keep",
            "help": "each to the point plus its offset from the group's centre, the group packed no looser than a clump",
            "fields": {
              "behaviour": "optional",
              "spacing": "optional",
              "queue": "optional"
            }
          },
          {
            "value": "point",
            "help": "all to the point itself, settling where they touch",
            "fields": {
              "behaviour": "optional",
              "queue": "optional"
            }
          },
          {
            "value": "formation",
            "help": "a formation at the point, facing the way they go (arrive, at once)",
            "fields": {
              "shape": "required",
              "spacing": "optional"
            }
          }
        ]
      }
    },
    {
      "cmd": "attack_move",
      "help": "send agents to a point, engaging the enemies (agents of other groups) they meet on the way",
      "fields": [
        {
          "name": "agents",
          "kind": "selection",
          "presence": "required",
          "sample": "all",
          "help": "which agents"
        },
        {
          "name": "target",
          "kind": "point",
          "presence": "exactly_one",
          "sample": {
            "x": 400.5,
            "y": 300.25
          },
          "help": "the point"
        },
        {
          "name": "target_tile",
          "kind": "tile",
          "presence": "exactly_one",
          "sample": {
            "x": 1,
            "y": 1
          },
          "help": "or the centre of this tile of the map"
        },
        {
          "name": "spread",
          "kind": "enum",
          "presence": "optional",
          "choices": [
            "keep",
            "point"
          ],
          "default": "keep",
          "sample": "point",
          "help": "keep: each keeps its offset from the group's centre; point: all to the point"
        },
        {
          "name": "queue",
          "kind": "boolean",
          "presence": "optional",
          "default": false,
          "sample": true,
          "help": "after the agents' current orders, instead of replacing them"
        },
        {
          "name": "radius",
          "kind": "number",
          "presence": "optional",
          "min": 0.01,
          "max": 10000,
          "default": 200,
          "sample": 150,
          "help": "units: their sight, how near an enemy must come to be engaged"
        }
      ]
    },
    {
      "cmd": "patrol",
      "help": "agents go from where each is through the points and back, again and again",
      "fields": [
        {
          "name": "agents",
          "kind": "selection",
          "presence": "required",
          "sample": "all",
          "help": "which agents"
        },
        {
          "name": "target",
          "kind": "point",
          "presence": "exactly_one",
          "sample": {
            "x": 400.5,
            "y": 300.25
          },
          "help": "the point"
        },
        {
          "name": "target_tile",
          "kind": "tile",
          "presence": "exactly_one",
          "sample": {
            "x": 1,
            "y": 1
          },
          "help": "or the centre of this tile of the map"
        },
        {
          "name": "points",
          "kind": "list",
          "presence": "exactly_one",
          "min_items": 1,
          "max_items": 64,
          "sample": [
            {
              "x": 300,
              "y": 200
            },
            {
              "x": 500,
              "y": 400
            }
          ],
          "help": "or a route: these points {x, y}, in order",
          "item": [
            {
              "name": "x",
              "kind": "number",
              "presence": "required",
              "sample": 300,
              "help": "inside the world"
            },
            {
              "name": "y",
              "kind": "number",
              "presence": "required",
              "sample": 200,
              "help": "inside the world"
            }
          ]
        },
        {
          "name": "spread",
          "kind": "enum",
          "presence": "optional",
          "choices": [
            "keep",
            "point"
          ],
          "default": "keep",
          "sample": "point",
          "help": "keep: each keeps its offset from the group's centre; point: all to the point"
        },
        {
          "name": "queue",
          "kind": "boolean",
          "presence": "optional",
          "default": false,
          "sample": true,
          "help": "after the agents' current orders, instead of replacing them"
        }
      ]
    },
    {
      "cmd": "stop",
      "help": "agents brake to a stop and forget their queued orders and patrols",
      "fields": [
        {
          "name": "agents",
          "kind": "selection",
          "presence": "required",
          "sample": "all",
          "help": "which agents"
        }
      ]
    },
    {
      "cmd": "spawn",
      "help": "add agents: a number at random places, or a list of them",
      "fields": [
        {
          "name": "count",
          "kind": "integer",
          "presence": "exactly_one",
          "min": 1,
          "sample": 10,
          "help": "that many at random places (at most the server's per-spawn limit, 1,000 by default)"
        },
        {
          "name": "agents",
          "kind": "list",
          "presence": "exactly_one",
          "min_items": 1,
          "max_items": 1000,
          "sample": [
            {
              "x": 400,
              "y": 300
            }
          ],
          "help": "these agents, each {x, y} and optional fields",
          "item": [
            {
              "name": "x",
              "kind": "number",
              "presence": "required",
              "sample": 400,
              "help": "position, inside the world"
            },
            {
              "name": "y",
              "kind": "number",
              "presence": "required",
              "sample": 300,
              "help": "position, inside the world"
            },
            {
              "name": "group",
              "kind": "integer",
              "presence": "optional",
              "min": 0,
              "max": 255,
              "default": 0,
              "sample": 2,
              "help": "the agent's group"
            },
            {
              "name": "radius",
              "kind": "number",
              "presence": "optional",
              "min": 0.1,
              "max": 100,
              "sample": 6,
              "help": "units; default the world's agent radius"
            },
            {
              "name": "max_speed",
              "kind": "number",
              "presence": "optional",
              "min": 0,
              "max": 10000,
              "sample": 100,
              "help": "units/s"
            },
            {
              "name": "max_force",
              "kind": "number",
              "presence": "optional",
              "min": 0,
              "max": 100000,
              "sample": 300,
              "help": "units/s²"
            },
            {
              "name": "mass",
              "kind": "number",
              "presence": "optional",
              "min": 0.001,
              "max": 1000000,
              "default": 1,
              "sample": 2,
              "help": "steering moves a heavier agent less"
            },
            {
              "name": "target",
              "kind": "point",
              "presence": "optional",
              "sample": {
                "x": 100.5,
                "y": 100.25
              },
              "help": "it starts arriving there"
            },
            {
              "name": "movement",
              "kind": "enum",
              "presence": "optional",
              "choices": [
                "inertial",
                "kinematic"
              ],
              "default": "inertial",
              "sample": "kinematic",
              "help": "how steering moves the agent"
            },
            {
              "name": "priority",
              "kind": "integer",
              "presence": "optional",
              "min": 0,
              "max": 99,
              "default": 50,
              "sample": 0,
              "help": "avoidance priority, 0 the most important: the less important of two yields"
            },
            {
              "name": "layer",
              "kind": "integer",
              "presence": "optional",
              "min": 0,
              "max": 4294967295,
              "default": 1,
              "sample": 2,
              "help": "avoidance layers (bits): an agent is avoided by those whose mask has one of them"
            },
            {
              "name": "mask",
              "kind": "integer",
              "presence": "optional",
              "min": 0,
              "max": 4294967295,
              "default": 4294967295,
              "sample": 1,
              "help": "avoidance mask (bits): an agent avoids only those whose layer shares a bit with it"
            },
            {
              "name": "sight",
              "kind": "number",
              "presence": "optional",
              "min": 0,
              "max": 100000,
              "sample": 150,
              "help": "units: how far the agent sees under fog of war; default the world's"
            },
            {
              "name": "max_hp",
              "kind": "number",
              "presence": "optional",
              "min": 0,
              "max": 1000000000,
              "min_exclusive": true,
              "sample": 120,
              "help": "hit points when unhurt; default the world's (100)"
            },
            {
              "name": "hp",
              "kind": "number",
              "presence": "optional",
              "min": 0,
              "max": 1000000000,
              "min_exclusive": true,
              "sample": 60,
              "help": "hit points it starts with, at most its max_hp; default its max_hp"
            },
            {
              "name": "damage",
              "kind": "number",
              "presence": "optional",
              "min": 0,
              "max": 1000000000,
              "sample": 10,
              "help": "its weapon: hit points a hit takes off an enemy (0: unarmed); default the world's"
            },
            {
              "name": "range",
              "kind": "number",
              "presence": "optional",
              "min": 0,
              "max": 10000,
              "sample": 40,
              "help": "its weapon: units between the two discs within which it hits (0: at contact, the body slam); default the world's"
            },
            {
              "name": "cooldown",
              "kind": "number",
              "presence": "optional",
              "min": 0.001,
              "max": 3600,
              "sample": 0.5,
              "help": "its weapon: seconds between two hits; default the world's (1)"
            }
          ]
        },
        {
          "name": "group",
          "kind": "integer",
          "presence": "optional",
          "min": 0,
          "max": 255,
          "with": "count",
          "default": 0,
          "sample": 2,
          "help": "the agent's group"
        },
        {
          "name": "priority",
          "kind": "integer",
          "presence": "optional",
          "min": 0,
          "max": 99,
          "with": "count",
          "default": 50,
          "sample": 0,
          "help": "avoidance priority, 0 the most important: the less important of two yields"
        },
        {
          "name": "layer",
          "kind": "integer",
          "presence": "optional",
          "min": 0,
          "max": 4294967295,
          "with": "count",
          "default": 1,
          "sample": 2,
          "help": "avoidance layers (bits): an agent is avoided by those whose mask has one of them"
        },
        {
          "name": "mask",
          "kind": "integer",
          "presence": "optional",
          "min": 0,
          "max": 4294967295,
          "with": "count",
          "default": 4294967295,
          "sample": 1,
          "help": "avoidance mask (bits): an agent avoids only those whose layer shares a bit with it"
        },
        {
          "name": "sight",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 100000,
          "with": "count",
          "sample": 150,
          "help": "units: how far the agent sees under fog of war; default the world's"
        },
        {
          "name": "max_hp",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 1000000000,
          "min_exclusive": true,
          "with": "count",
          "sample": 120,
          "help": "hit points when unhurt; default the world's (100)"
        },
        {
          "name": "hp",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 1000000000,
          "min_exclusive": true,
          "with": "count",
          "sample": 60,
          "help": "hit points it starts with, at most its max_hp; default its max_hp"
        },
        {
          "name": "damage",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 1000000000,
          "with": "count",
          "sample": 10,
          "help": "its weapon: hit points a hit takes off an enemy (0: unarmed); default the world's"
        },
        {
          "name": "range",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 10000,
          "with": "count",
          "sample": 40,
          "help": "its weapon: units between the two discs within which it hits (0: at contact, the body slam); default the world's"
        },
        {
          "name": "cooldown",
          "kind": "number",
          "presence": "optional",
          "min": 0.001,
          "max": 3600,
          "with": "count",
          "sample": 0.5,
          "help": "its weapon: seconds between two hits; default the world's (1)"
        },
        {
          "name": "team",
          "kind": "integer",
          "presence": "optional",
          "min": 0,
          "max": 63,
          "default": 0,
          "sample": 1,
          "help": "the team of every agent it makes (0: nobody's); a player's agents are its own team's"
        }
      ]
    },
    {
      "cmd": "set_behaviour",
      "help": "give agents a behaviour (seek, flee, pursue, attack, react...): replaces what they were doing",
      "fields": [
        {
          "name": "agents",
          "kind": "selection",
          "presence": "required",
          "sample": "all",
          "help": "which agents"
        },
        {
          "name": "behaviour",
          "kind": "enum",
          "presence": "required",
          "choices": [
            "idle",
            "hold",
            "seek",
            "arrive",
            "flee",
            "pursue",
            "evade",
            "attack",
            "react",
            "patrol",
            "attack_move",
            "wander",
            "flock",
            "follow_path",
            "follow",
            "queue"
          ],
          "sample": "idle",
          "help": "what they do"
        },
        {
          "name": "target",
          "kind": "point",
          "presence": "optional",
          "sample": {
            "x": 400.5,
            "y": 300.25
          },
          "help": "a point"
        },
        {
          "name": "target_tile",
          "kind": "tile",
          "presence": "optional",
          "sample": {
            "x": 1,
            "y": 1
          },
          "help": "or the centre of this tile of the map"
        },
        {
          "name": "agent",
          "kind": "agent",
          "presence": "optional",
          "min": 1,
          "max": 4294967295,
          "sample": 1,
          "help": "the other agent (not one of the selection)"
        },
        {
          "name": "radius",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 1000000000,
          "sample": 150,
          "help": "units: flee and evade act only nearer than this (0: always); react's trigger distance; attack_move's sight"
        },
        {
          "name": "response",
          "kind": "enum",
          "presence": "optional",
          "choices": [
            "pursue",
            "evade"
          ],
          "default": "pursue",
          "sample": "evade",
          "help": "what react does while the other is within the radius"
        },
        {
          "name": "distance",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 1000000000,
          "sample": 48,
          "help": "wander: the circle's centre ahead of the agent (0: 6 radii)"
        },
        {
          "name": "jitter",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 1000000000,
          "sample": 240,
          "help": "wander: how far the point on the circle moves in a second (0: 30 radii)"
        },
        {
          "name": "separation",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 100,
          "default": 1.5,
          "sample": 1.5,
          "help": "flock: the weight of keeping apart"
        },
        {
          "name": "alignment",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 100,
          "default": 1,
          "sample": 1,
          "help": "flock: the weight of heading as the neighbours do"
        },
        {
          "name": "cohesion",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 100,
          "default": 1,
          "sample": 1,
          "help": "flock: the weight of keeping together"
        },
        {
          "name": "path",
          "kind": "list",
          "presence": "optional",
          "min_items": 2,
          "max_items": 1024,
          "sample": [
            {
              "x": 100,
              "y": 100
            },
            {
              "x": 400,
              "y": 120
            },
            {
              "x": 350,
              "y": 400
            }
          ],
          "help": "follow_path: the points {x, y}, in order",
          "item": [
            {
              "name": "x",
              "kind": "number",
              "presence": "required",
              "sample": 100,
              "help": "inside the world"
            },
            {
              "name": "y",
              "kind": "number",
              "presence": "required",
              "sample": 100,
              "help": "inside the world"
            }
          ]
        },
        {
          "name": "loop",
          "kind": "boolean",
          "presence": "optional",
          "default": false,
          "sample": true,
          "help": "follow_path: round and round"
        },
        {
          "name": "offset",
          "kind": "point",
          "presence": "optional",
          "sample": {
            "x": -30,
            "y": 20
          },
          "help": "follow: the place in the leader's frame (x ahead, y to its right)"
        }
      ],
      "variants": {
        "field": "behaviour",
        "cases": [
          {
            "value": "idle",
            "help": "brakes to a stop; others can push it around",
            "fields": {}
          },
          {
            "value": "hold",
            "help": "arrives at the point (or where it is now) and returns there when pushed",
            "fields": {
              "target": "at_most_one",
              "target_tile": "at_most_one"
            }
          },
          {
            "value": "seek",
            "help": "full speed at the point or the agent; overshoots and circles",
            "fields": {
              "target": "exactly_one",
              "target_tile": "exactly_one",
              "agent": "exactly_one"
            }
          },
          {
            "value": "arrive",
            "help": "seek that slows down and stops on the goal",
            "fields": {
              "target": "exactly_one",
              "target_tile": "exactly_one",
              "agent": "exactly_one"
            }
          },
          {
            "value": "flee",
            "help": "away from the point or the agent at full speed",
            "fields": {
              "target": "exactly_one",
              "target_tile": "exactly_one",
              "agent": "exactly_one",
              "radius": "optional"
            }
          },
          {
            "value": "pursue",
            "help": "intercepts the other agent",
            "fields": {
              "agent": "required"
            }
          },
          {
            "value": "evade",
            "help": "flees the point the other agent is about to reach",
            "fields": {
              "agent": "required",
              "radius": "optional"
            }
          },
          {
            "value": "attack",
            "help": "walks to the other agent, hits it, walks back and holds",
            "fields": {
              "agent": "required"
            }
          },
          {
            "value": "react",
            "help": "pursues or evades the other agent while it is within the radius, else goes home",
            "fields": {
              "agent": "required",
              "radius": "required",
              "response": "optional"
            }
          },
          {
            "value": "patrol",
            "help": "to the point and back to where it was, again and again",
            "fields": {
              "target": "exactly_one",
              "target_tile": "exactly_one"
            }
          },
          {
            "value": "attack_move",
            "help": "to the point, engaging the enemies (agents of other groups) that come within the radius (default 200) on the way",
            "fields": {
              "target": "exactly_one",
              "target_tile": "exactly_one",
              "radius": "optional"
            }
          },
          {
            "value": "wander",
            "help": "Reynolds' wander: toward a point on a circle ahead, moved a little at random each tick",
            "fields": {
              "radius": "optional",
              "distance": "optional",
              "jitter": "optional"
            }
          },
          {
            "value": "flock",
            "help": "separation, alignment and cohesion among the agents of its group within the radius; to the target when given",
            "fields": {
              "radius": "optional",
              "separation": "optional",
              "alignment": "optional",
              "cohesion": "optional",
              "target": "at_most_one",
              "target_tile": "at_most_one"
            }
          },
          {
            "value": "follow_path",
            "help": "along the path, within the radius of it, once or round and round",
            "fields": {
              "path": "required",
              "radius": "optional",
              "loop": "optional"
            }
          },
          {
            "value": "follow",
            "help": "keep a place behind (or beside) the leader agent; a group takes places in a block",
            "fields": {
              "agent": "required",
              "offset": "optional"
            }
          },
          {
            "value": "queue",
            "help": "arrive at the point, braking behind a slower agent close ahead",
            "fields": {
              "target": "exactly_one",
              "target_tile": "exactly_one"
            }
          }
        ]
      }
    },
    {
      "cmd": "set_movement",
      "help": "how steering moves agents: a force on momentum, or a heading that turns at once",
      "fields": [
        {
          "name": "agents",
          "kind": "selection",
          "presence": "required",
          "sample": "all",
          "help": "which agents"
        },
        {
          "name": "movement",
          "kind": "enum",
          "presence": "required",
          "choices": [
            "inertial",
            "kinematic"
          ],
          "sample": "kinematic",
          "help": "inertial: a ship's thrust; kinematic: only the speed changes gradually"
        }
      ]
    },
    {
      "cmd": "add_obstacle",
      "help": "place a static circular obstacle",
      "fields": [
        {
          "name": "x",
          "kind": "number",
          "presence": "required",
          "sample": 400,
          "help": "centre, inside the world"
        },
        {
          "name": "y",
          "kind": "number",
          "presence": "required",
          "sample": 300,
          "help": "centre, inside the world"
        },
        {
          "name": "radius",
          "kind": "number",
          "presence": "required",
          "min": 0.1,
          "max": 10000,
          "sample": 20,
          "help": "units"
        }
      ]
    },
    {
      "cmd": "remove_obstacle",
      "help": "remove a static obstacle",
      "fields": [
        {
          "name": "id",
          "kind": "obstacle",
          "presence": "required",
          "min": 0,
          "max": 4294967295,
          "sample": 1,
          "help": "the obstacle's id"
        }
      ]
    },
    {
      "cmd": "add_wall",
      "help": "place a static wall: a segment, a polyline through the points, or (closed) a polygon; no agent ever crosses it",
      "fields": [
        {
          "name": "points",
          "kind": "list",
          "presence": "required",
          "min_items": 2,
          "max_items": 256,
          "sample": [
            {
              "x": 400,
              "y": 100
            },
            {
              "x": 400,
              "y": 500
            },
            {
              "x": 300,
              "y": 500
            }
          ],
          "help": "2 to 256 points {x, y} in order, inside the world, none equal to the one before it (a closed wall: 3 or more)",
          "item": [
            {
              "name": "x",
              "kind": "number",
              "presence": "required",
              "sample": 300,
              "help": "inside the world"
            },
            {
              "name": "y",
              "kind": "number",
              "presence": "required",
              "sample": 200,
              "help": "inside the world"
            }
          ]
        },
        {
          "name": "closed",
          "kind": "boolean",
          "presence": "optional",
          "default": false,
          "sample": true,
          "help": "join the last point to the first: a polygon"
        }
      ]
    },
    {
      "cmd": "remove_wall",
      "help": "remove a wall",
      "fields": [
        {
          "name": "wall",
          "kind": "integer",
          "presence": "required",
          "min": 0,
          "max": 4294967295,
          "sample": 1,
          "help": "the wall's id (the ack of add_wall gives it)"
        }
      ]
    },
    {
      "cmd": "add_measurement",
      "help": "measure the crowd: a line that counts who crosses it each way, or an area's density and speed",
      "fields": [
        {
          "name": "line",
          "kind": "list",
          "presence": "exactly_one",
          "min_items": 2,
          "max_items": 2,
          "sample": [
            {
              "x": 400,
              "y": 400
            },
            {
              "x": 400,
              "y": 200
            }
          ],
          "help": "two points {x, y}: forward is crossing to the line's right, seen from the first point towards the second",
          "item": [
            {
              "name": "x",
              "kind": "number",
              "presence": "required",
              "sample": 400,
              "help": "inside the world"
            },
            {
              "name": "y",
              "kind": "number",
              "presence": "required",
              "sample": 300,
              "help": "inside the world"
            }
          ]
        },
        {
          "name": "area",
          "kind": "area",
          "presence": "exactly_one",
          "sample": {
            "x": 300,
            "y": 200,
            "width": 200,
            "height": 100
          },
          "help": "or a rectangle: agents inside, density, mean speed"
        }
      ]
    },
    {
      "cmd": "remove_measurement",
      "help": "remove a measurement line or area",
      "fields": [
        {
          "name": "id",
          "kind": "integer",
          "presence": "required",
          "min": 0,
          "max": 4294967295,
          "sample": 1,
          "help": "the measurement's id (the ack of add_measurement gives it)"
        }
      ]
    },
    {
      "cmd": "add_source",
      "help": "a source: a rectangle that spawns agents at a rate, up to a total, each made from the fields below",
      "fields": [
        {
          "name": "area",
          "kind": "area",
          "presence": "required",
          "sample": {
            "x": 100,
            "y": 100,
            "width": 100,
            "height": 100
          },
          "help": "where agents appear: each at a seeded random point inside, clear of others"
        },
        {
          "name": "rate",
          "kind": "number",
          "presence": "required",
          "min": 0,
          "max": 1000,
          "min_exclusive": true,
          "sample": 2,
          "help": "agents per second of world time"
        },
        {
          "name": "total",
          "kind": "integer",
          "presence": "required",
          "min": 1,
          "max": 1000000,
          "sample": 50,
          "help": "how many it spawns in all"
        },
        {
          "name": "behaviour",
          "kind": "enum",
          "presence": "optional",
          "choices": [
            "idle",
            "hold",
            "seek",
            "arrive",
            "flee",
            "patrol",
            "attack_move"
          ],
          "sample": "arrive",
          "help": "what each new agent does: arrive when a target is given, else idle"
        },
        {
          "name": "target",
          "kind": "point",
          "presence": "optional",
          "sample": {
            "x": 700,
            "y": 300
          },
          "help": "the behaviour's point"
        },
        {
          "name": "group",
          "kind": "integer",
          "presence": "optional",
          "min": 0,
          "max": 255,
          "default": 0,
          "sample": 2,
          "help": "the agent's group"
        },
        {
          "name": "radius",
          "kind": "number",
          "presence": "optional",
          "min": 0.1,
          "max": 100,
          "sample": 6,
          "help": "units; default the world's agent radius"
        },
        {
          "name": "max_speed",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 10000,
          "sample": 100,
          "help": "units/s"
        },
        {
          "name": "max_force",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 100000,
          "sample": 300,
          "help": "units/s²"
        },
        {
          "name": "mass",
          "kind": "number",
          "presence": "optional",
          "min": 0.001,
          "max": 1000000,
          "default": 1,
          "sample": 2,
          "help": "steering moves a heavier agent less"
        },
        {
          "name": "movement",
          "kind": "enum",
          "presence": "optional",
          "choices": [
            "inertial",
            "kinematic"
          ],
          "default": "inertial",
          "sample": "kinematic",
          "help": "how steering moves the agent"
        },
        {
          "name": "pathing",
          "kind": "enum",
          "presence": "optional",
          "choices": [
            "direct",
            "no_backtrack",
            "astar",
            "flow"
          ],
          "default": "direct",
          "sample": "direct",
          "help": "how they find their way on a tile map (other than direct needs one)"
        },
        {
          "name": "neighbours",
          "kind": "enum",
          "presence": "optional",
          "choices": [
            8,
            4
          ],
          "default": 8,
          "sample": 4,
          "help": "astar and flow: move to 8 neighbours or to 4"
        },
        {
          "name": "priority",
          "kind": "integer",
          "presence": "optional",
          "min": 0,
          "max": 99,
          "default": 50,
          "sample": 0,
          "help": "avoidance priority, 0 the most important: the less important of two yields"
        },
        {
          "name": "layer",
          "kind": "integer",
          "presence": "optional",
          "min": 0,
          "max": 4294967295,
          "default": 1,
          "sample": 2,
          "help": "avoidance layers (bits): an agent is avoided by those whose mask has one of them"
        },
        {
          "name": "mask",
          "kind": "integer",
          "presence": "optional",
          "min": 0,
          "max": 4294967295,
          "default": 4294967295,
          "sample": 1,
          "help": "avoidance mask (bits): an agent avoids only those whose layer shares a bit with it"
        },
        {
          "name": "max_hp",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 1000000000,
          "min_exclusive": true,
          "sample": 120,
          "help": "hit points when unhurt; default the world's (100)"
        },
        {
          "name": "damage",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 1000000000,
          "sample": 10,
          "help": "its weapon: hit points a hit takes off an enemy (0: unarmed); default the world's"
        },
        {
          "name": "range",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 10000,
          "sample": 40,
          "help": "its weapon: units between the two discs within which it hits (0: at contact, the body slam); default the world's"
        },
        {
          "name": "cooldown",
          "kind": "number",
          "presence": "optional",
          "min": 0.001,
          "max": 3600,
          "sample": 0.5,
          "help": "its weapon: seconds between two hits; default the world's (1)"
        }
      ],
      "variants": {
        "field": "behaviour",
        "cases": [
          {
            "value": "idle",
            "help": "they stand where they appear",
            "fields": {}
          },
          {
            "value": "hold",
            "help": "they go to the point and hold there",
            "fields": {
              "target": "required"
            }
          },
          {
            "value": "seek",
            "help": "full speed at the point",
            "fields": {
              "target": "required"
            }
          },
          {
            "value": "arrive",
            "help": "to the point, stopping on it",
            "fields": {
              "target": "required"
            }
          },
          {
            "value": "flee",
            "help": "away from the point",
            "fields": {
              "target": "required"
            }
          },
          {
            "value": "patrol",
            "help": "to the point and back to where they appeared, again and again",
            "fields": {
              "target": "required"
            }
          },
          {
            "value": "attack_move",
            "help": "to the point, engaging enemies on the way",
            "fields": {
              "target": "required"
            }
          }
        ]
      }
    },
    {
      "cmd": "remove_source",
      "help": "remove a source (the agents it made stay)",
      "fields": [
        {
          "name": "id",
          "kind": "integer",
          "presence": "required",
          "min": 0,
          "max": 4294967295,
          "sample": 1,
          "help": "the source's id (the ack of add_source gives it)"
        }
      ]
    },
    {
      "cmd": "add_exit",
      "help": "an exit: a rectangle that removes the agents that reach it (their centre inside) and counts them",
      "fields": [
        {
          "name": "area",
          "kind": "area",
          "presence": "required",
          "sample": {
            "x": 700,
            "y": 250,
            "width": 100,
            "height": 100
          },
          "help": "where agents leave"
        }
      ]
    },
    {
      "cmd": "remove_exit",
      "help": "remove an exit",
      "fields": [
        {
          "name": "id",
          "kind": "integer",
          "presence": "required",
          "min": 0,
          "max": 4294967295,
          "sample": 1,
          "help": "the exit's id (the ack of add_exit gives it)"
        }
      ]
    },
    {
      "cmd": "set_avoidance",
      "help": "change the world's avoidance settings (the others keep their values)",
      "fields": [
        {
          "name": "mode",
          "kind": "enum",
          "presence": "at_least_one",
          "choices": [
            "none",
            "circle",
            "cardioid",
            "orca",
            "cfsm"
          ],
          "default": "cardioid",
          "sample": "circle",
          "help": "none; circle: plain anti-gravity; cardioid: the whole pipeline; orca: reciprocal velocity obstacles (RVO2) for every agent; cfsm: the collision-free speed model of pedestrian dynamics (speed from the headway to the one ahead)"
        },
        {
          "name": "personal_space",
          "kind": "number",
          "presence": "at_least_one",
          "min": 0,
          "max": 100,
          "min_exclusive": true,
          "default": 3,
          "sample": 2,
          "help": "k in the push k (r1 + r2)² / d²"
        },
        {
          "name": "cardioid_exponent",
          "kind": "number",
          "presence": "at_least_one",
          "min": 0,
          "max": 16,
          "default": 3,
          "sample": 2,
          "help": "how sharply pushes ahead outweigh those behind"
        },
        {
          "name": "preferred_side",
          "kind": "enum",
          "presence": "at_least_one",
          "choices": [
            "left",
            "right"
          ],
          "default": "right",
          "sample": "left",
          "help": "the side taken for an obstacle dead ahead"
        },
        {
          "name": "split_fix",
          "kind": "enum",
          "presence": "at_least_one",
          "choices": [
            "sum_as_obstacle",
            "seed"
          ],
          "default": "sum_as_obstacle",
          "sample": "seed",
          "help": "how a symmetric split is broken"
        },
        {
          "name": "push_epsilon",
          "kind": "number",
          "presence": "at_least_one",
          "min": 0.0001,
          "max": 1,
          "default": 0.05,
          "sample": 0.1,
          "help": "pushes weaker than this are cut off"
        },
        {
          "name": "crossing",
          "kind": "boolean",
          "presence": "at_least_one",
          "default": true,
          "sample": false,
          "help": "crossing paths: right of way to whoever reaches the crossing first"
        },
        {
          "name": "crossing_activation",
          "kind": "number",
          "presence": "at_least_one",
          "min": 0,
          "max": 60,
          "default": 0.667,
          "sample": 1,
          "help": "seconds: react to a moving agent closer than speed times this plus radius"
        },
        {
          "name": "lookahead",
          "kind": "number",
          "presence": "at_least_one",
          "min": 0,
          "max": 60,
          "default": 2,
          "sample": 1,
          "help": "seconds of the look-ahead segments"
        },
        {
          "name": "max_neighbours",
          "kind": "integer",
          "presence": "at_least_one",
          "min": 0,
          "max": 1000,
          "default": 16,
          "sample": 8,
          "help": "agents each agent avoids at most, the nearest (0: no cap)"
        },
        {
          "name": "time_gap",
          "kind": "number",
          "presence": "at_least_one",
          "min": 0.05,
          "max": 10,
          "default": 0.56,
          "sample": 1,
          "help": "cfsm: seconds of headway kept to the one ahead (speed = gap / this)"
        },
        {
          "name": "repulsion_strength",
          "kind": "number",
          "presence": "at_least_one",
          "min": 0,
          "max": 100,
          "default": 8,
          "sample": 5,
          "help": "cfsm: a neighbour's repulsion of the direction at contact"
        },
        {
          "name": "repulsion_range",
          "kind": "number",
          "presence": "at_least_one",
          "min": 0,
          "max": 10,
          "min_exclusive": true,
          "default": 0.5,
          "sample": 1,
          "help": "cfsm: radii over which a neighbour's repulsion falls by e"
        },
        {
          "name": "wall_repulsion_strength",
          "kind": "number",
          "presence": "at_least_one",
          "min": 0,
          "max": 100,
          "default": 5,
          "sample": 2,
          "help": "cfsm: a wall's or obstacle's repulsion of the direction at contact"
        },
        {
          "name": "wall_repulsion_range",
          "kind": "number",
          "presence": "at_least_one",
          "min": 0,
          "max": 10,
          "min_exclusive": true,
          "default": 0.1,
          "sample": 0.5,
          "help": "cfsm: radii over which a wall's repulsion falls by e"
        }
      ]
    },
    {
      "cmd": "load_map",
      "help": "replace the tile map (its corner at the world's origin)",
      "fields": [
        {
          "name": "width",
          "kind": "integer",
          "presence": "required",
          "min": 1,
          "max": 1024,
          "sample": 5,
          "help": "tiles across: each row's length"
        },
        {
          "name": "height",
          "kind": "integer",
          "presence": "required",
          "min": 1,
          "max": 1024,
          "sample": 5,
          "help": "tiles down: the number of rows"
        },
        {
          "name": "tile_size",
          "kind": "number",
          "presence": "required",
          "min": 0.001,
          "max": 10000,
          "sample": 40,
          "help": "units per tile side"
        },
        {
          "name": "rows",
          "kind": "rows",
          "presence": "required",
          "sample": [
            "#####",
            "#...#",
            "#.#.#",
            "#...#",
            "#####"
          ],
          "help": "top row first: '#' blocked, '.' walkable"
        }
      ]
    },
    {
      "cmd": "clear_map",
      "help": "remove the tile map",
      "fields": []
    },
    {
      "cmd": "set_tiles",
      "help": "block or clear tiles of the map",
      "fields": [
        {
          "name": "tiles",
          "kind": "list",
          "presence": "required",
          "min_items": 1,
          "max_items": 10000,
          "sample": [
            {
              "x": 1,
              "y": 1,
              "blocked": true
            }
          ],
          "help": "the tiles to change",
          "item": [
            {
              "name": "x",
              "kind": "integer",
              "presence": "required",
              "min": 0,
              "max": 1023,
              "sample": 1,
              "help": "tile column"
            },
            {
              "name": "y",
              "kind": "integer",
              "presence": "required",
              "min": 0,
              "max": 1023,
              "sample": 1,
              "help": "tile row"
            },
            {
              "name": "blocked",
              "kind": "boolean",
              "presence": "required",
              "sample": true,
              "help": "a wall (true) or floor (false)"
            }
          ]
        }
      ]
    },
    {
      "cmd": "set_pathing",
      "help": "how agents find their way on the tile map",
      "fields": [
        {
          "name": "agents",
          "kind": "selection",
          "presence": "required",
          "sample": "all",
          "help": "which agents"
        },
        {
          "name": "pathing",
          "kind": "enum",
          "presence": "required",
          "choices": [
            "direct",
            "no_backtrack",
            "astar",
            "flow"
          ],
          "sample": "direct",
          "help": "direct: straight at the goal; no_backtrack: the tile walker; astar: A* paths; flow: a flow field"
        },
        {
          "name": "neighbours",
          "kind": "enum",
          "presence": "optional",
          "choices": [
            8,
            4
          ],
          "default": 8,
          "sample": 4,
          "help": "astar and flow: move to 8 neighbours or to 4"
        }
      ]
    },
    {
      "cmd": "set_group",
      "help": "put agents in another group",
      "fields": [
        {
          "name": "agents",
          "kind": "selection",
          "presence": "required",
          "sample": "all",
          "help": "which agents"
        },
        {
          "name": "group",
          "kind": "integer",
          "presence": "required",
          "min": 0,
          "max": 255,
          "sample": 3,
          "help": "their new group"
        }
      ]
    },
    {
      "cmd": "formation",
      "help": "send agents to places in a shape: circle, line, lines, block or wedge",
      "fields": [
        {
          "name": "agents",
          "kind": "selection",
          "presence": "required",
          "sample": "all",
          "help": "which agents"
        },
        {
          "name": "shape",
          "kind": "enum",
          "presence": "required",
          "choices": [
            "circle",
            "line",
            "lines",
            "block",
            "wedge"
          ],
          "sample": "circle",
          "help": "the layout"
        },
        {
          "name": "centre",
          "kind": "point",
          "presence": "required",
          "sample": {
            "x": 400.5,
            "y": 300.25
          },
          "help": "the middle of the formation"
        },
        {
          "name": "spacing",
          "kind": "number",
          "presence": "optional",
          "min": 0.01,
          "max": 10000,
          "sample": 30,
          "help": "units between neighbouring places; default from the largest radius"
        },
        {
          "name": "facing",
          "kind": "number",
          "presence": "optional",
          "min": -360,
          "max": 360,
          "default": 0,
          "sample": 90,
          "help": "degrees: turns the layout clockwise"
        },
        {
          "name": "radius",
          "kind": "number",
          "presence": "optional",
          "min": 0,
          "max": 1000000,
          "sample": 180,
          "help": "the circle's radius at least; default just large enough for the spacing"
        },
        {
          "name": "orientation",
          "kind": "enum",
          "presence": "optional",
          "choices": [
            "horizontal",
            "vertical"
          ],
          "default": "horizontal",
          "sample": "vertical",
          "help": "which way the lines run"
        },
        {
          "name": "count",
          "kind": "integer",
          "presence": "optional",
          "min": 1,
          "max": 1000,
          "sample": 2,
          "help": "lines: how many lines (default 2); block: blocks side by side (default 1)"
        },
        {
          "name": "columns",
          "kind": "integer",
          "presence": "optional",
          "min": 1,
          "max": 10000,
          "sample": 4,
          "help": "columns per block; default as square as possible"
        },
        {
          "name": "regroup",
          "kind": "boolean",
          "presence": "optional",
          "default": false,
          "sample": true,
          "help": "each agent's group becomes its block's or line's index"
        },
        {
          "name": "assignment",
          "kind": "enum",
          "presence": "optional",
          "choices": [
            "auto",
            "optimal",
            "bisection",
            "keep_order",
            "shuffle"
          ],
          "default": "auto",
          "sample": "keep_order",
          "help": "who takes which place"
        }
      ],
      "variants": {
        "field": "shape",
        "cases": [
          {
            "value": "circle",
            "help": "a ring round the centre",
            "fields": {
              "radius": "optional"
            }
          },
          {
            "value": "line",
            "help": "one line",
            "fields": {
              "orientation": "optional"
            }
          },
          {
            "value": "lines",
            "help": "parallel lines",
            "fields": {
              "orientation": "optional",
              "count": "optional"
            }
          },
          {
            "value": "block",
            "help": "rectangular blocks side by side",
            "fields": {
              "count": "optional",
              "columns": "optional"
            }
          },
          {
            "value": "wedge",
            "help": "a V",
            "fields": {}
          }
        ]
      }
    },
    {
      "cmd": "swap_places",
      "help": "each agent goes to another's place (at least two agents)",
      "fields": [
        {
          "name": "agents",
          "kind": "selection",
          "presence": "required",
          "sample": "all",
          "help": "which agents"
        }
      ]
    },
    {
      "cmd": "opposite",
      "help": "split into sectors round the centre, each crossing to the opposite side",
      "fields": [
        {
          "name": "agents",
          "kind": "selection",
          "presence": "required",
          "sample": "all",
          "help": "which agents"
        },
        {
          "name": "groups",
          "kind": "integer",
          "presence": "optional",
          "min": 1,
          "max": 256,
          "default": 3,
          "sample": 2,
          "help": "how many sectors, each a group"
        }
      ]
    },
    {
      "cmd": "exchange",
      "help": "the selection's two groups (of the same size) trade places",
      "fields": [
        {
          "name": "agents",
          "kind": "selection",
          "presence": "required",
          "sample": "all",
          "help": "which agents"
        }
      ]
    },
    {
      "cmd": "invert",
      "help": "everyone goes to the point opposite through the selection's centre",
      "fields": [
        {
          "name": "agents",
          "kind": "selection",
          "presence": "required",
          "sample": "all",
          "help": "which agents"
        }
      ]
    },
    {
      "cmd": "remove",
      "help": "remove agents from the world",
      "fields": [
        {
          "name": "agents",
          "kind": "selection",
          "presence": "required",
          "sample": "all",
          "help": "which agents"
        }
      ]
    },
    {
      "cmd": "pause",
      "control": true,
      "help": "stop stepping the world",
      "fields": []
    },
    {
      "cmd": "resume",
      "control": true,
      "help": "step the world again",
      "fields": []
    },
    {
      "cmd": "step",
      "control": true,
      "help": "while paused: run some ticks at once",
      "fields": [
        {
          "name": "ticks",
          "kind": "integer",
          "presence": "optional",
          "min": 1,
          "max": 1000,
          "default": 1,
          "sample": 5,
          "help": "how many"
        }
      ]
    },
    {
      "cmd": "reset",
      "control": true,
      "help": "rebuild the running scenario",
      "fields": [
        {
          "name": "seed",
          "kind": "integer",
          "presence": "optional",
          "min": 0,
          "max": 18446744073709551615,
          "sample": 7,
          "help": "another seed for its random draws; default the scenario's"
        }
      ]
    },
    {
      "cmd": "load_scenario",
      "control": true,
      "help": "build another of the server's scenarios",
      "fields": [
        {
          "name": "name",
          "kind": "string",
          "presence": "required",
          "min_length": 1,
          "max_length": 256,
          "choices_from": "scenarios",
          "sample": "maze",
          "help": "one of the server's scenarios"
        },
        {
          "name": "seed",
          "kind": "integer",
          "presence": "optional",
          "min": 0,
          "max": 18446744073709551615,
          "sample": 7,
          "help": "another seed for its random draws; default the scenario's"
        }
      ]
    },
    {
      "cmd": "set_param",
      "control": true,
      "help": "ticks and snapshots per second",
      "fields": [
        {
          "name": "tick_rate",
          "kind": "number",
          "presence": "at_least_one",
          "min": 0,
          "max": 1000,
          "min_exclusive": true,
          "sample": 30,
          "help": "world ticks per second of wall time"
        },
        {
          "name": "snapshot_rate",
          "kind": "number",
          "presence": "at_least_one",
          "min": 0,
          "max": 1000,
          "min_exclusive": true,
          "sample": 10,
          "help": "snapshots per second, at most the tick rate"
        }
      ]
    },
    {
      "cmd": "kick",
      "control": true,
      "help": "close another session (the operator's monitor and herd-ctl sessions list them)",
      "fields": [
        {
          "name": "session",
          "kind": "integer",
          "presence": "required",
          "min": 0,
          "max": 9007199254740992,
          "sample": 7,
          "help": "the session's id, as its welcome said"
        }
      ]
    }
  ]
};
