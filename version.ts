/** FlyingFish version (kept in step with deno.json "version"). */
export const VERSION = "0.1.0";
