// Validates one glTF file with the Khronos glTF-Validator (npm package
// gltf-validator, installed by `make check-assets` under target/) and prints
// `errors warnings` on one line, then the first messages as JSON lines.
// Exit 0 when the file has no errors, 1 when it has some, 2 when it
// could not be read. Side files (buffers, images) are read beside it.
const validator = require('gltf-validator');
const fs = require('fs');
const path = require('path');

const file = process.argv[2];
const sideFile = (uri) => new Promise((resolve, reject) => {
  try {
    resolve(new Uint8Array(fs.readFileSync(path.join(path.dirname(file), decodeURIComponent(uri)))));
  } catch (e) {
    reject(e.toString());
  }
});
validator
  .validateBytes(new Uint8Array(fs.readFileSync(file)), { uri: file, externalResourceFunction: sideFile })
  .then((report) => {
    const issues = report.issues;
    console.log(`${issues.numErrors} ${issues.numWarnings}`);
    for (const m of issues.messages.filter((m) => m.severity === 0).slice(0, 5)) {
      console.log(JSON.stringify(m));
    }
    process.exit(issues.numErrors > 0 ? 1 : 0);
  })
  .catch((e) => {
    console.error(`${file}: ${e}`);
    process.exit(2);
  });
