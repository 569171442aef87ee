/**
 * The pages' stylesheet, served as one file so the CSP can allow styles from Gatehouse only. Colours keep a
 * contrast of at least 4.5:1 (WCAG AA); every control shows where the keyboard focus is; nothing depends on colour
 * alone (errors also say so in words).
 */
export const PAGES_STYLES = `
*, *::before, *::after { box-sizing: border-box; }
html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 100%; line-height: 1.5; color: #1b1b1b; background: #fafafa; }
body { margin: 0; }
header.site { background: #20313f; padding: 0.75rem 1rem; }
header.site a { color: #fff; font-weight: 700; text-decoration: none; }
main { max-width: 40rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
main.wide { max-width: 60rem; }
h1 { font-size: 1.75rem; margin: 0.5rem 0 1.25rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 0.75rem; }
h3 { font-size: 1.05rem; margin: 1.5rem 0 0.5rem; }
a { color: #0b5394; }
a:hover { color: #073763; }
:focus-visible { outline: 3px solid #f0a800; outline-offset: 2px; }
section[hidden], div[hidden], p[hidden], form[hidden], button[hidden], img[hidden] { display: none; }
.field { margin: 0 0 1.25rem; }
label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
.hint { margin: 0 0 0.35rem; color: #4a4a4a; font-size: 0.95rem; }
.field-error { margin: 0 0 0.35rem; color: #a4161a; font-weight: 600; }
.field-error::before { content: "Error: "; }
input { display: block; width: 100%; font: inherit; padding: 0.5rem 0.6rem; border: 2px solid #5b5b5b; border-radius: 4px; background: #fff; color: inherit; }
input[aria-invalid="true"] { border-color: #a4161a; }
select { display: block; width: 100%; font: inherit; padding: 0.5rem 0.6rem; border: 2px solid #5b5b5b; border-radius: 4px; background: #fff; color: inherit; }
td select { display: inline-block; width: auto; padding: 0.25rem 0.4rem; margin-right: 0.4rem; }
button { font: inherit; font-weight: 600; padding: 0.55rem 1.1rem; border: 2px solid #0b5394; border-radius: 4px; background: #0b5394; color: #fff; cursor: pointer; }
button:hover { background: #073763; border-color: #073763; }
button[aria-busy="true"] { opacity: 0.7; cursor: progress; }
button.danger { background: #a4161a; border-color: #a4161a; }
button.danger:hover { background: #7a1013; border-color: #7a1013; }
button.secondary { background: #fff; color: #0b5394; }
button.secondary:hover { background: #eef1f4; color: #073763; }
a.button { display: inline-block; font-weight: 600; padding: 0.55rem 1.1rem; border: 2px solid #0b5394; border-radius: 4px; text-decoration: none; }
a.button.secondary { background: #fff; color: #0b5394; }
a.button.secondary:hover { background: #eef1f4; color: #073763; }
td button { padding: 0.3rem 0.8rem; margin: 0.1rem 0.4rem 0.1rem 0; }
td button.link { padding: 0; border: 0; background: none; color: #0b5394; font-weight: 600; text-decoration: underline; }
td button.link:hover { background: none; color: #073763; }
.check { display: grid; grid-template-columns: auto 1fr; gap: 0 0.6rem; align-items: start; }
.check input { width: 1.25rem; height: 1.25rem; margin: 0.15rem 0 0; }
.check label { margin: 0; }
.check .hint { grid-column: 2; }
.tag { display: inline-block; margin-left: 0.25rem; padding: 0 0.4rem; border: 1px solid #2e7d32; border-radius: 3px; color: #1e5b22; font-size: 0.85rem; }
.tag.expired { border-color: #a4161a; color: #a4161a; }
fieldset { border: 0; padding: 0; margin: 0 0 1.25rem; min-width: 0; }
legend { font-weight: 600; padding: 0; margin-bottom: 0.25rem; }
fieldset .check { margin-bottom: 0.4rem; }
input.key { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; }
.notice, .error-summary { padding: 0.75rem 1rem; margin: 0 0 1.25rem; border-left: 6px solid; background: #fff; }
.notice { border-color: #2e7d32; }
.error-summary { border-color: #a4161a; }
.error-summary p { margin: 0; font-weight: 600; }
.error-summary ul { margin: 0.5rem 0 0; }
.aside { margin-top: 1.5rem; }
.passkey-login { margin-top: 1rem; }
.oidc-sign-in { margin-top: 1rem; }
img.qr { display: block; background: #fff; padding: 0.5rem; border: 1px solid #d0d0d0; }
.codes { columns: 2; font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 1.05rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 0; }
dt { font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; margin: 0.5rem 0 1rem; font-size: 0.95rem; }
th, td { text-align: left; vertical-align: top; padding: 0.35rem 0.5rem; border-bottom: 1px solid #d0d0d0; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.92em; background: #eef1f4; padding: 0.05rem 0.25rem; border-radius: 3px; overflow-wrap: anywhere; }
td:first-child code, td:nth-child(2) code { white-space: nowrap; }
.operation { border-top: 1px solid #d0d0d0; padding-top: 0.5rem; }
.method { display: inline-block; min-width: 4.5rem; font-weight: 700; }
.toc { columns: 2; }
.toc a { text-decoration: none; }
.toc a code { text-decoration: underline; }
@media (max-width: 40rem) { .toc { columns: 1; } }
`;
