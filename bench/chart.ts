/** A small hand-rolled SVG line chart, log-log: time against stack size. */

export interface Series {
  label: string;
  color: string;
  dashed?: boolean;
  points: { x: number; y: number }[];
}

const W = 720;
const H = 420;
const M = { left: 70, right: 210, top: 30, bottom: 50 };

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");

export function lineChart(title: string, xLabel: string, yLabel: string, series: Series[]): string {
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const ys = series.flatMap((s) => s.points.map((p) => Math.max(p.y, 0.1)));
  const x0 = Math.log10(Math.min(...xs));
  const x1 = Math.log10(Math.max(...xs));
  const y0 = Math.floor(Math.log10(Math.min(...ys)));
  const y1 = Math.ceil(Math.log10(Math.max(...ys)));
  const px = (x: number) => M.left + ((Math.log10(x) - x0) / (x1 - x0 || 1)) * (W - M.left - M.right);
  const py = (y: number) => H - M.bottom - ((Math.log10(Math.max(y, 0.1)) - y0) / (y1 - y0 || 1)) * (H - M.top - M.bottom);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${M.left}" y="18" font-size="14" font-weight="bold">${esc(title)}</text>`,
  ];
  for (let e = y0; e <= y1; e++) {
    const y = py(10 ** e);
    out.push(`<line x1="${M.left}" y1="${y}" x2="${W - M.right}" y2="${y}" stroke="#ddd"/>`);
    out.push(`<text x="${M.left - 6}" y="${y + 4}" text-anchor="end">${10 ** e >= 1000 ? `${10 ** (e - 3)} s` : `${10 ** e} ms`}</text>`);
  }
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
    out.push(`<line x1="${px(x)}" y1="${M.top}" x2="${px(x)}" y2="${H - M.bottom}" stroke="#eee"/>`);
    out.push(`<text x="${px(x)}" y="${H - M.bottom + 16}" text-anchor="middle">${x}</text>`);
  }
  out.push(`<text x="${(M.left + W - M.right) / 2}" y="${H - 12}" text-anchor="middle">${esc(xLabel)}</text>`);
  out.push(`<text transform="translate(16 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`);
  series.forEach((s, i) => {
    const pts = s.points.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(" ");
    out.push(`<polyline points="${pts}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 4"' : ""}/>`);
    for (const p of s.points) out.push(`<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y).toFixed(1)}" r="3" fill="${s.color}"/>`);
    const ly = M.top + 10 + i * 18;
    out.push(`<line x1="${W - M.right + 12}" y1="${ly}" x2="${W - M.right + 36}" y2="${ly}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 4"' : ""}/>`);
    out.push(`<text x="${W - M.right + 42}" y="${ly + 4}">${esc(s.label)}</text>`);
  });
  out.push("</svg>");
  return out.join("\n") + "\n";
}
