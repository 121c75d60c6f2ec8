// Stand-in for cli-table3: the rows of the summary table, one line each.
module.exports = class Table {
  constructor({ head }) {
    this.rows = [head];
  }
  push(row) {
    this.rows.push(row);
  }
  toString() {
    return this.rows.map((row) => `| ${row.join(" | ")} |`).join("\n");
  }
};
