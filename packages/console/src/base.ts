/** The console's base URL: the folder above the bundle's own URL (`<base>assets/app-HASH.js`). */
export const BASE_URL = new URL("..", import.meta.url);
