// Verifies one captured webhook request with the Standard Webhooks
// reference library.  stdin: {"secret", "body", "headers"}; prints the
// verified payload (JSON) or exits 1 with the library's error.
"use strict";
const { Webhook } = require("standardwebhooks");

let input = "";
process.stdin.on("data", (d) => { input += d; });
process.stdin.on("end", () => {
  const m = JSON.parse(input);
  try {
    const payload = new Webhook(m.secret).verify(m.body, m.headers);
    process.stdout.write(JSON.stringify(payload));
  } catch (e) {
    process.stderr.write("verification failed: " + e.message + "\n");
    process.exit(1);
  }
});
