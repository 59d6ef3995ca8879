/**
 * The rules for the parts of Jupyter messages that both tables use: the
 * header, mime bundles, the reply envelope (status, and ename/evalue/
 * traceback on error) and the pieces of reply contents. The request table
 * (message_types.ts) writes each reply's rule with them, the outbound schema
 * (outbound_schema.ts) its iopub and stdin messages. Pure: no messages, no I/O.
 */
import {
  anyObject, anyOf, arrayOf, bool, described, Described, Fields, isObject, isoDate, mapOf, matching,
  nonEmptyStr, obj, oneOf, Rule, str, tuple, uint,
} from "./schema_rules";

const MIME_KEY = /^[A-Za-z0-9][\w.+-]*\/[\w.+-]+$/;
const JSON_MIME = /^application\/json$|\+json$/;

/** Tabular data resources: the one JSON mime type whose shape the strict parser reads (schema.fields with name and type). */
const dataResource = obj({
  schema: obj({
    fields: arrayOf(obj({
      name: str,
      type: oneOf("string", "number", "integer", "date", "time", "datetime", "year", "yearmonth", "boolean",
        "object", "geopoint", "geojson", "array", "duration", "any"),
    })),
  }),
});

/** A mime bundle: text and images as strings (base64 for binary images), JSON types as any JSON. */
export const mimeBundle: Rule = (v, path, out) => {
  if (!isObject(v)) { out.push({ field: path, expected: "a mime bundle (an object keyed by mime type)", value: v }); return; }
  for (const [key, value] of Object.entries(v)) {
    const at = `${path}["${key}"]`;
    if (!MIME_KEY.test(key)) out.push({ field: at, expected: "a key that is a mime type (type/subtype)", value: key });
    else if (key === "application/vnd.dataresource+json") dataResource(value, at, out);
    else if (!JSON_MIME.test(key)) str(value, at, out);
  }
};

/** A message header the kernel sends: every field a string, the date ISO 8601 with a zone. */
export const header = obj({
  msg_id: nonEmptyStr, msg_type: nonEmptyStr, session: str, username: str, date: isoDate,
  version: matching(/^5\.\d+$/, "a protocol version 5.x"),
});

/**
 * A request's header as a client sent it (and as the kernel echoes it in
 * parent_header): every field a string, the id and type not empty. The date
 * and version are not parsed (ipykernel reads neither, and an empty date is
 * no reason to drop a request).
 */
export const requestHeader = obj({ msg_id: nonEmptyStr, msg_type: nonEmptyStr, session: str, username: str, date: str, version: str });

const replyStatus = oneOf("ok", "error", "aborted");
export const errorFields: Fields = { ename: str, evalue: str, traceback: arrayOf(str) };

/**
 * A reply: `status` always; with "ok" every field of `fields`; with "error"
 * ename/evalue/traceback and the fields named in `evenOnError`; with
 * "aborted" nothing more. Fields present beyond those must still fit.
 */
export function reply(fields: Fields, evenOnError: string[] = []): Rule {
  const pick = (names: string[]) => Object.fromEntries(names.map((n) => [n, fields[n]]));
  const okRule = obj({ status: replyStatus, ...fields });
  const errorRule = obj({ status: replyStatus, ...errorFields, ...pick(evenOnError) }, fields);
  const abortedRule = obj({ status: replyStatus }, { ...fields, ...errorFields });
  return (v, path, out) => {
    const status = isObject(v) ? v.status : undefined;
    if (status === "error") errorRule(v, path, out);
    else if (status === "aborted") abortedRule(v, path, out);
    else okRule(v, path, out);
  };
}

const codemirrorMode = anyOf(
  described("a mode name (string)", str),
  described("{name: string, version: non-negative integer}", obj({ name: str, version: uint })),
);

export const languageInfo = obj(
  { name: nonEmptyStr, version: str, mimetype: str, file_extension: matching(/^\.\w+$/, "a file extension starting with a dot") },
  { pygments_lexer: str, codemirror_mode: codemirrorMode.rule, nbconvert_exporter: str },
);

export const payload: Rule = (() => {
  const forms: Record<string, Rule> = {
    page: obj({ data: mimeBundle, start: uint }),
    set_next_input: obj({ text: str, replace: bool }),
    edit_magic: obj({ filename: str, line_number: uint }),
    ask_exit: obj({ keepkernel: bool }),
  };
  const source = oneOf(...Object.keys(forms));
  return (v, path, out) => {
    const s = isObject(v) ? v.source : undefined;
    if (typeof s === "string" && forms[s]) forms[s](v, path, out);
    else source(s, `${path}.source`, out);
  };
})();

export const expressionResult: Rule = (v, path, out) => {
  if (isObject(v) && v.status === "error") obj({ status: oneOf("error"), ...errorFields })(v, path, out);
  else obj({ status: oneOf("ok", "error"), data: mimeBundle, metadata: anyObject })(v, path, out);
};

export const historyEntry: Described = anyOf(
  described("[session, line, input]", tuple(uint, uint, str)),
  described("[session, line, [input, output]] (strings)", tuple(uint, uint, tuple(str, str))),
);

/** The data and metadata of a display output. */
export const display = { data: mimeBundle, metadata: anyObject };
/** A display output's transient part (its display_id). */
export const transient = obj({}, { display_id: str });
