// htmx is embedded as text (served from the binary, never from a CDN).
declare module "htmx.org/dist/htmx.min.js" {
  const text: string;
  export default text;
}
