/**
 * The parts of a generated op module (native/generated/*_ops.ts) that the
 * unary and the binary generators (scripts/gen_unary_ops.js,
 * scripts/gen_binary_ops.js) write alike: doc comments, the export of
 * PyTorch's other names, the Tensor interface's declarations and the methods
 * put on Tensor.prototype. Each pushes lines onto `lines`.
 */
'use strict';

/** A doc comment of `text` lines (` * ` before each). */
function pushDoc(lines, text, indent = '') {
  lines.push(`${indent}/**`);
  for (const t of text) lines.push(`${indent} * ${t}`.trimEnd());
  lines.push(`${indent} */`);
}

/** `export { name as alias, … }` of PyTorch's other names, when there are any. */
function pushAliasExports(lines, aliases) {
  if (aliases.length === 0) return;
  lines.push('');
  lines.push("// PyTorch's other names.");
  lines.push(`export { ${aliases.map(({ alias, op }) => `${op.name} as ${alias}`).join(', ')} };`);
}

/** The Tensor interface's declarations: `members` are [doc, signature] pairs. */
function pushTensorDeclarations(lines, members) {
  lines.push('');
  lines.push("declare module '../tensor' {");
  lines.push('  interface Tensor {');
  for (const [doc, signature] of members) {
    lines.push(`    /** ${doc} */`);
    lines.push(`    ${signature};`);
  }
  lines.push('  }');
  lines.push('}');
  lines.push('');
}

/** The methods on Tensor.prototype: `assignments` are `P.name = …;` lines, then one line per alias. */
function pushPrototype(lines, assignments, aliases) {
  lines.push('const P = Tensor.prototype as unknown as Record<string, unknown>;');
  lines.push(...assignments);
  for (const { alias, op } of aliases) lines.push(`P.${alias} = P.${op.name};`);
  lines.push('');
}

module.exports = { pushDoc, pushAliasExports, pushTensorDeclarations, pushPrototype };
