import { html } from "hono/html";
import { short as shortId } from "../../core/history.ts";
import type { HtmlEscapedString } from "hono/utils/html";
import { redactSecrets } from "../../core/redact.ts";
import { IS_EDGE } from "../../runtime/edition.ts";

// The page shell and the small helpers every view uses. Every text from the store passes through
// show(): redacted again (a record written before redaction existed is cleaned only on its next
// rewrite) and then escaped by the html template.

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export const show = (s: unknown): string => (s === null || s === undefined ? "" : redactSecrets(String(s)).text);

export const when = (s: number | null | undefined): string => (typeof s === "number" ? new Date(s * 1000).toISOString().slice(0, 16).replace("T", " ") : "—");

export const short = (s: string, n = 160): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export const memLink = (id: string, label?: string): Html => html`<a href="/ui/m/${id}">${label ?? shortId(id)}</a>`;

export function page(title: string, body: Html, current = ""): Html {
  const link = (href: string, label: string) => html`<a href="${href}"${current === href ? html` aria-current="page"` : ""}>${label}</a>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"selfRequestsOnly":true}'>
<title>${title} · memsync</title><link rel="stylesheet" href="/ui/static/app.css">
<script src="/ui/static/htmx.js" defer></script><script src="/ui/static/app.js" defer></script></head>
<body><a class="skip" href="#main">Skip to content</a>
<header><strong>memsync</strong><nav aria-label="Main">${link("/ui", "Search")}${link("/ui/recall", "Recall")}${link("/ui/forget", "Forget")}${link("/ui/conflicts", "Conflicts")}${link("/ui/health", "Health")}${IS_EDGE ? "" : link("/ui/gc", "Maintenance")}</nav></header>
<main id="main"><h1>${title}</h1>${body}</main></body></html>`;
}

export const hidden = (name: string, value: string | number | undefined): Html => (value === undefined || value === "" ? html`` : html`<input type="hidden" name="${name}" value="${String(value)}">`);
