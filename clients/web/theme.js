// @ts-check
// The viewer's colours, in one place: view.js, map_view.js and the tests (through window.herd.theme)
// all read them from here, so a picture and its check cannot disagree.
//
// The colours both viewers draw (the ground, obstacles, walls, selection, the collision ring, the
// groups) come from palette.json, the one palette of the browser and of herd-view (CMake turns it
// into a C++ header for herd-view: cmake/palette_header.cmake). It lives here because the server
// serves this directory and installs it as it is; herd-view reads it only when it is built.
// What the entries are:
// - obstacle, obstacleRim: static obstacles are stone, grey unlike any group hue, with a darker
//   rim so they read as solid terrain rather than as another unit.
// - wall, floor: the tile map's walls (raised slate blocks, darker than the obstacles' stone) and
//   its floor, a shade off the world's ground.
// - collided: the ring round an agent that has collided since it last reached its goal or came to
//   rest (its body keeps its group colour: a crowd that has crossed is not a sea of red). A deep
//   red, chosen with the groups' palette so that no group colour comes near it for people who see
//   colours differently too: tests/web/palette.test.mjs measures the distances (CIELAB) as
//   trichromats, protanopes and deuteranopes see them. (A bright #ff1f1f was 16 apart from the
//   palette's orange to a deuteranope.)
// - flash: a collision's ring at its point, warm white, brighter than anything else on the map.
// - groups: Okabe and Ito's colour-blind-safe palette (sky blue, orange, bluish green, yellow,
//   reddish purple, blue), without its vermillion, which is the collided red to a protanope, and
//   its black, which the dark ground hides; group g uses g mod 6.
// JSON modules need Chrome 123, Firefox 138 or Safari 17.2 and later.

import PALETTE from './palette.json' with { type: 'json' };

export const THEME = {
  ...PALETTE,
  grid: 'rgba(255, 255, 255, 0.04)',
  heading: 'rgba(255, 255, 255, 0.8)',
  order: 'rgba(255, 255, 255, 0.9)',
  // An attack-move's ring where it was given, and its cursor (input.js): a hot red-orange, apart
  // from the collided ring's deep red and from every group colour.
  attackOrder: '#ff5a3c',
  // Role marks (hunter, prey, guard, leader): light outlines on a dark halo, readable on any group.
  roleMark: '#f4f4f4',
  roleHalo: 'rgba(0, 0, 0, 0.75)',

  // Tile maps (wall and floor from the palette). Walls are raised slate blocks (a lit
  // top edge, darker sides, a shadow cast on the floor below them); the floor has faint tile seams.
  floorSeam: '#1f2935',
  floorShadow: '#10161d', // the band a wall casts on the floor tile south of it
  wallLit: '#56657a', // a wall's edge that faces north onto floor
  wallDark: '#262f3b', // a wall's edges that face east, west or south onto floor
  // Painting: tiles sent but not yet in a snapshot, and the tile under the brush.
  paintPreviewAlpha: 0.65,
  brush: 'rgba(255, 255, 255, 0.7)',
  // An agent whose pathing cannot reach its goal: a warning yellow, brighter than group 3's, on a
  // dashed ring and a round "!" badge (the shapes tell it apart, not the hue alone).
  unreachable: '#fff200',
  unreachableInk: '#11161c',
  // A stalled agent (moving below a tenth of its speed for over 2 s, stalls.js): a white round badge
  // on its upper left with its reason's letter, told apart from the unreachable "!" by its place
  // and colour, and from every group colour by being white.
  stalled: '#f4f4f4',
  stalledInk: '#11161c',
  // The heat map (heat_map.js, key D): the upper three quarters of magma's ramp, purple to pale
  // yellow, which reads as more to every kind of colour vision (its darkest quarter would vanish
  // into the world's dark ground); each cell more opaque the higher its value, so a lone agent's
  // cell tints the ground and a crush glows. Empty cells are not drawn. The agents are drawn over
  // it in their group colours.
  heatRamp: ['#721f81', '#b73779', '#f1605d', '#feb078', '#fcfdbf'],
  heatAlpha: /** @type {[number, number]} */ ([0.45, 0.8]),
  // Sources and exits (add_source, add_exit): rectangles on the ground, outlined and faintly
  // filled, each with its count; a source dashed in spring green (agents come out of it), an exit
  // solid in pale sky (they leave through it). Their shapes (dashed, solid) and labels tell them
  // apart as well as the hues, which no group colour is near.
  source: '#7be0a6',
  sourceFill: 'rgba(123, 224, 166, 0.08)',
  exit: '#c9e6ff',
  exitFill: 'rgba(201, 230, 255, 0.1)',
  // Teams (a server with players): team t's agents in the groups' colours, team 1 the first (sky
  // blue), team 2 the second (orange)..., the same colour-blind-safe set; team 0's (nobody's) a
  // neutral grey, lighter than the obstacles' stone and apart from every team's hue.
  teamNeutral: '#b4b9c0',
  // Fog of war (fog_layer.js): the world a player's agents cannot see, darkened, not hidden.
  fog: 'rgba(0, 0, 0, 0.6)',
  // A player's ground its team has never explored (the snapshots' `explored`): darker still.
  fogUnexplored: 'rgba(0, 0, 0, 0.88)',
  // Hit points (the game): a hurt agent's bar over it, full part green to red, the rest dark; a
  // death's marker a cross in the flash's colour, fading; a hit flashes the agent white.
  healthBack: 'rgba(0, 0, 0, 0.7)',
  healthHigh: '#4cd964',
  healthLow: '#ff3b30',
  death: '#ff5050',
  hitFlash: '#ffffff',
};

/** @param {number} group @returns {string} */
export function groupColor(group) {
  return THEME.groups[group % THEME.groups.length];
}

// The teams' colours the server's welcome gives (`teams`: the players file's), by team: they
// take the place of the palette's for those teams (session.js sets them at each welcome).
/** @type {Map<number, string>} */
const givenTeamColours = new Map();

/** @param {Map<number, string>} colours */
export function setTeamColours(colours) {
  givenTeamColours.clear();
  for (const [t, c] of colours) givenTeamColours.set(t, c);
}

// Team `team`'s colour: the welcome's for it when given, else 0 (nobody's) neutral grey and 1 and
// up the groups' colours in turn.
/** @param {number} team @returns {string} */
export function teamColor(team) {
  const given = givenTeamColours.get(team);
  if (given) return given;
  return team > 0 ? THEME.groups[(team - 1) % THEME.groups.length] : THEME.teamNeutral;
}

// How agents are coloured: by team when byTeam (fog.js's coloursByTeam: some agent has a team),
// an agent without one being nobody's; else by group.
/** @param {boolean} byTeam @returns {(a: {group: number, team?: number}) => string} */
export function agentColorBy(byTeam) {
  return byTeam ? (a) => teamColor(a.team ?? 0) : (a) => groupColor(a.group);
}
