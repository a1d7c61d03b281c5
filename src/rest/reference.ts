/**
 * A self-contained, browsable API reference page: it reads the OpenAPI document and lists
 * every route with its parameters, body and responses. No external scripts or fonts.
 */
export function referencePage(openApiUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Workflow service — API reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;background:#f7f8fa}
header{background:#1d2330;color:#fff;padding:16px 32px}header h1{margin:0;font-size:20px}
main{max-width:980px;margin:0 auto;padding:24px 32px}
.route{background:#fff;border:1px solid #dde1e8;border-radius:8px;margin:12px 0;padding:12px 16px}
.m{display:inline-block;min-width:64px;font-weight:700;font-family:ui-monospace,monospace}
.GET{color:#1a7f37}.POST{color:#0550ae}.PUT{color:#8250df}.PATCH{color:#9a6700}.DELETE{color:#cf222e}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f3f4f6;padding:8px;border-radius:6px;overflow:auto}
h2{margin-top:32px;font-size:17px}details summary{cursor:pointer}
header code,.route>code,li code{overflow-wrap:anywhere}pre{max-width:100%;box-sizing:border-box}
@media (max-width:600px){header{padding:12px 16px}main{padding:16px 12px}.route{padding:10px 12px}ul{padding-left:1.2em}}
</style></head>
<body><header><h1>Workflow service — REST API reference</h1><div>Every request carries <code>Authorization: Bearer &lt;ID token&gt;</code>. Raw document: <a style="color:#9cf" href="${openApiUrl}">openapi.json</a></div></header>
<main id="root">Loading…</main>
<script>
fetch(${JSON.stringify(openApiUrl)}).then(r=>r.json()).then(doc=>{
  const esc=s=>String(s).replace(/[&<>"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
  const byTag={};
  for(const [path,ops] of Object.entries(doc.paths))for(const [m,op] of Object.entries(ops))(byTag[op.tags[0]]??=[]).push({path,m:m.toUpperCase(),op});
  let html='';
  for(const [tag,list] of Object.entries(byTag)){
    html+='<h2>'+esc(tag)+'</h2>';
    for(const {path,m,op} of list){
      const params=(op.parameters||[]).map(p=>'<li><code>'+esc(p.name)+'</code> ('+p.in+(p.required?', required':'')+')</li>').join('');
      const body=op.requestBody?'<details><summary>Body</summary><pre>'+esc(JSON.stringify(op.requestBody.content['application/json'].schema,null,2))+'</pre></details>':'';
      const ok=Object.entries(op.responses).find(([s])=>s.startsWith('2'));
      const resp=ok&&ok[1].content&&ok[1].content['application/json']&&ok[1].content['application/json'].schema?'<details><summary>'+ok[0]+' response</summary><pre>'+esc(JSON.stringify(ok[1].content['application/json'].schema,null,2))+'</pre></details>':'';
      html+='<div class="route"><span class="m '+m+'">'+m+'</span> <code>'+esc(path)+'</code> — '+esc(op.summary)+(params?'<ul>'+params+'</ul>':'')+body+resp+'</div>';
    }
  }
  html+='<h2>Schemas</h2><pre>'+esc(JSON.stringify(doc.components.schemas,null,2))+'</pre>';
  document.getElementById('root').innerHTML=html;
}).catch(e=>{document.getElementById('root').textContent='Could not load the OpenAPI document: '+e});
</script></body></html>`;
}
