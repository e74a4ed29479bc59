// `bench:cli --cpu-prof` loads this into every node process of a run (NODE_OPTIONS=--require):
// node 20 refuses --cpu-prof in NODE_OPTIONS, so the profile is taken through the inspector.
// It is written when the process exits, or when the CLI interrupts it (a plugin ends on
// SIGINT, which skips 'exit' handlers); then the signal goes on as it would have, to the
// process's own handlers or, when there are none, raised again.
"use strict";
const inspector = require("node:inspector");
const fs = require("node:fs");
const path = require("node:path");

const dir = process.env.SVC_BENCH_CPU_PROF_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 1000 });
  session.post("Profiler.start");
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    // A session in the process's own thread answers at once, so this runs before exit.
    session.post("Profiler.stop", (err, result) => {
      if (err) return;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  };
  process.on("exit", write);
  for (const signal of ["SIGINT", "SIGTERM"]) {
    const onSignal = () => {
      write();
      process.removeListener(signal, onSignal);
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}
