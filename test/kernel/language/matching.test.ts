/** How a typed prefix selects completion candidates: prefix, then camelCase abbreviation, then substring. */
import { abbreviates, matchNames, wordStarts } from "../../../kernel/language/matching";

const CUDA = ["emptyCache", "getDeviceProperties", "maxMemoryAllocated", "memoryAllocated", "memoryReserved",
  "memoryStats", "memorySummary", "resetPeakMemoryStats", "synchronize"];
const match = (typed: string) => matchNames(CUDA, typed, (n) => n);

test("names that start with the typed text come first, and alone", () => {
  expect(match("mem")).toEqual(["memoryAllocated", "memoryReserved", "memoryStats", "memorySummary"]);
  expect(match("")).toEqual(CUDA);
});

test("a prefix in another case is the next choice", () => {
  expect(match("MEMORYS")).toEqual(["memoryStats", "memorySummary"]);
});

test("camelCase abbreviations from the name's start: memS, mR, gDP", () => {
  expect(match("memS")).toEqual(["memoryStats", "memorySummary"]);
  expect(match("mR")).toEqual(["memoryReserved"]);
  expect(match("gDP")).toEqual(["getDeviceProperties"]);
});

test("then abbreviations from a later word and substrings", () => {
  expect(match("Stats")).toEqual(["memoryStats", "resetPeakMemoryStats"]);
  expect(match("PMS")).toEqual(["resetPeakMemoryStats"]);
  expect(match("chron")).toEqual(["synchronize"]);
  expect(match("zzz")).toEqual([]);
});

test("word starts: humps, capitals runs, after underscores and digits", () => {
  expect(wordStarts("memoryStats")).toEqual([0, 6]);
  expect(wordStarts("HTMLElement")).toEqual([0, 4]);
  expect(wordStarts("snake_case_name")).toEqual([0, 6, 11]);
  expect(wordStarts("float16Tensor")).toEqual([0, 7]);
  expect(abbreviates("mAl", "memoryAllocated", true)).toBe(true);
  expect(abbreviates("mAl", "resetMemoryAllocated", true)).toBe(false);
  expect(abbreviates("mAl", "resetMemoryAllocated", false)).toBe(true);
});
