import htmx from "htmx.org/dist/htmx.min.js" with { type: "text" };

// The page's files, served from the binary (no CDN, nothing fetched at run time): htmx 2 for
// results as you type and partial updates, a few lines of our own for the live captures (SSE), and
// the style sheet. All are files, so the CSP allows no inline script or style.

const APP_JS = `"use strict";
(function () {
  var live = document.getElementById("live");
  if (live && window.EventSource) {
    var es = new EventSource("/ui/events");
    es.addEventListener("ready", function () {
      live.setAttribute("data-live", "ready");
    });
    es.addEventListener("capture", function (e) {
      var empty = document.getElementById("live-empty");
      if (empty) empty.remove();
      live.insertAdjacentHTML("afterbegin", e.data);
    });
  }
})();
`;

const APP_CSS = `:root{color-scheme:light;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--accent:#0a58ca;--bad:#b42318;--bg:#fff;--soft:#f6f8fa}
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;padding:.6rem 1rem;border-bottom:1px solid var(--line);background:var(--soft)}
header strong{margin-right:1rem}nav{display:flex;flex-wrap:wrap;gap:.2rem .8rem}a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid #ffbf47;outline-offset:1px}
main{max-width:1100px;margin:0 auto;padding:1rem}
.skip{position:absolute;left:-999px}.skip:focus{left:.5rem;top:.5rem;background:#fff;padding:.3rem}
form.filters{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:.5rem;align-items:end;margin-bottom:1rem}
form.filters .wide{grid-column:1/-1}
label{display:flex;flex-direction:column;font-size:.85rem;color:var(--muted);gap:.15rem}
input,select,textarea,button{font:inherit;padding:.35rem .5rem;border:1px solid var(--line);border-radius:6px;background:#fff;color:var(--fg)}
textarea{width:100%;min-height:8rem}textarea[rows]{min-height:0}
fieldset{border:1px solid var(--line);border-radius:6px;display:grid;grid-template-columns:repeat(auto-fit,minmax(240px,1fr));gap:.5rem;margin:.75rem 0}legend{color:var(--muted);font-size:.85rem}button{cursor:pointer;background:var(--soft)}button.danger{border-color:var(--bad);color:var(--bad)}button.primary{background:var(--accent);color:#fff;border-color:var(--accent)}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
.muted{color:var(--muted)}.tag{display:inline-block;background:var(--soft);border:1px solid var(--line);border-radius:999px;padding:0 .5rem;margin:0 .2rem .2rem 0;font-size:.85rem}
.content{white-space:pre-wrap;background:var(--soft);padding:.75rem;border-radius:6px;border:1px solid var(--line);overflow-wrap:anywhere}
.cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:1rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:.75rem 0}.note{padding:.5rem .75rem;border-left:4px solid var(--accent);background:var(--soft)}
.bad{color:var(--bad)}.diff del{background:#ffebe9}.diff ins{background:#dafbe1;text-decoration:none}
svg.plot{max-width:100%;height:auto;border:1px solid var(--line);border-radius:6px;background:#fff}
ul.live{list-style:none;padding:0}ul.live li{padding:.3rem 0;border-bottom:1px solid var(--line)}
@media (max-width:600px){header{padding:.5rem}main table{display:block;overflow-x:auto}main{padding:.6rem}table.results td.opt,table.results th.opt{display:none}dl{grid-template-columns:1fr}}
`;

export const ASSETS: Record<string, { type: string; body: string }> = {
  "htmx.js": { type: "text/javascript; charset=utf-8", body: htmx },
  "app.js": { type: "text/javascript; charset=utf-8", body: APP_JS },
  "app.css": { type: "text/css; charset=utf-8", body: APP_CSS },
};
