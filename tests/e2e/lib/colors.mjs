// Colour comparisons for canvas pixels read back with getImageData.

export function hexToRgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

// Largest difference over the R, G, B channels.
export function colorDistance(rgba, rgb) {
  return Math.max(...rgb.map((c, i) => Math.abs(c - rgba[i])));
}
