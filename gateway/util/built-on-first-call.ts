/**
 * A function built on its first call: `build` (which may import what the function needs) runs
 * once, every call waits for it, and once it resolved each call goes straight to what it built. For
 * what a gateway needs only when a feature is used: one that never uses it never loads its modules.
 */
export function builtOnFirstCall<A extends unknown[], R>(build: () => Promise<(...args: A) => Promise<R>>): (...args: A) => Promise<R> {
  let built: ((...args: A) => Promise<R>) | undefined;
  let building: Promise<(...args: A) => Promise<R>> | undefined;
  return (...args) => {
    if (built) return built(...args);
    building ??= build().then((fn) => (built = fn));
    return building.then((fn) => fn(...args));
  };
}
