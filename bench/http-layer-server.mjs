// Started by bench/http-layer.ts: the node:http layer of one checkout's build (its dist/src/http),
// serving a handler that reads a JSON body as the service's POST routes do (readBodyText) and
// answers a fixed JSON text of the chosen size. GET /cpu tells the requests served and the CPU used
// so far. Plain JavaScript so that each build runs as built. Listens on 127.0.0.1:$PORT only.
import { pathToFileURL } from 'node:url';

const [distDir, sizeText] = process.argv.slice(2);
const load = (file) => import(pathToFileURL(`${distDir}/src/http/${file}`).href);
const { createNodeServer } = await load('node.js');
const { readBodyText } = await load('body.js');
const { textResponse } = await load('text-response.js');

const size = Number(sizeText);
// Mostly ASCII with line breaks to escape, like the service's JSON answers.
const answer = JSON.stringify({ success: true, data: { text: 'abcdefghij\n'.repeat(Math.ceil(size / 11)).slice(0, size) } });
const headers = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'bench-http-layer' };
let served = 0;

const server = createNodeServer(async (request) => {
  if (request.url.endsWith('/healthz')) return textResponse('{"status":"ok"}', { headers });
  if (request.url.endsWith('/cpu')) {
    const cpu = process.cpuUsage();
    return textResponse(JSON.stringify({ served, cpuMicros: cpu.user + cpu.system }), { headers });
  }
  served += 1;
  if (request.method === 'POST') JSON.parse(await readBodyText(request, 1 << 20));
  return textResponse(answer, { headers });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
