/**
 * The testdata/ folder the CLI ships for `flyingfish demo` (published with the package, copied
 * beside a bundle, embedded in a compiled binary), handed to the fake API server's scenario loader.
 */

/** This package's testdata/ folder. */
export function demoTestdata(): URL {
  return new URL("../testdata/", import.meta.url);
}
