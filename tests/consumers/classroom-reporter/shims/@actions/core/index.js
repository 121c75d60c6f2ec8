// Stand-in for @actions/core: the functions the reporter uses, printing what the real ones print.
exports.getInput = (name) =>
  (process.env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] || "").trim();

exports.notice = (message, { title }) => console.log(`::notice title=${title}::${message}`);

exports.setFailed = (message) => {
  process.exitCode = 1;
  console.log(`::error::${message}`);
};
