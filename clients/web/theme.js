// @ts-check
// The viewer's colours, in one place: view.js, map_view.js and the tests (through window.herd.theme)
// all read them from here, so a picture and its check cannot disagree.

export const THEME = {
  outside: '#0b0f14', // canvas outside the world
  world: '#141b24', // the world rectangle
  worldEdge: '#2e3d4f',
  grid: 'rgba(255, 255, 255, 0.04)',
  heading: 'rgba(255, 255, 255, 0.8)',
  selection: '#ffffff',
  target: '#ffffff',
  order: 'rgba(255, 255, 255, 0.9)',
  // Static obstacles are stone: grey, unlike any group hue, with a darker rim so they read as
  // solid terrain rather than as another unit.
  obstacle: '#878d96',
  obstacleRim: '#3f454d',
  // Seed 003's demo: "the entities turn red after a collision, until they reach their target".
  // A deep red, chosen with the groups' palette so that no group colour comes near it for people
  // who see colours differently too: web_modules.test.mjs measures the distances (CIELAB) as
  // trichromats, protanopes and deuteranopes see them. (A bright #ff1f1f was 16 apart from the
  // palette's orange to a deuteranope.)
  collided: '#c81808',
  flash: '#fff4c2', // a collision's ring: warm white, brighter than anything else on the map
  // Groups: Okabe and Ito's colour-blind-safe palette (sky blue, orange, bluish green, yellow,
  // reddish purple, blue), without its vermillion, which is the collided red to a protanope, and
  // its black, which the dark ground hides; group g uses g mod 6.
  groups: ['#56b4e9', '#e69f00', '#009e73', '#f0e442', '#cc79a7', '#0072b2'],
  // Role marks (hunter, prey, guard, leader): light outlines on a dark halo, readable on any group.
  roleMark: '#f4f4f4',
  roleHalo: 'rgba(0, 0, 0, 0.75)',

  // Seed 002's tile map. Walls are raised slate blocks (a lit top edge, darker sides, a shadow
  // cast on the floor below them), darker than the obstacles' stone so the two kinds of terrain
  // stay apart; the floor is only a shade off the world's ground, with faint tile seams.
  floor: '#19222d',
  floorSeam: '#1f2935',
  floorShadow: '#10161d', // the band a wall casts on the floor tile south of it
  wall: '#3a4656',
  wallLit: '#56657a', // a wall's edge that faces north onto floor
  wallDark: '#262f3b', // a wall's edges that face east, west or south onto floor
  // Painting: tiles sent but not yet in a snapshot, and the tile under the brush.
  paintPreviewAlpha: 0.65,
  brush: 'rgba(255, 255, 255, 0.7)',
  // An agent whose pathing cannot reach its goal: a warning yellow, brighter than group 3's, on a
  // dashed ring and a round "!" badge (the shapes tell it apart, not the hue alone).
  unreachable: '#fff200',
  unreachableInk: '#11161c',
};

/** @param {number} group @returns {string} */
export function groupColor(group) {
  return THEME.groups[group % THEME.groups.length];
}
