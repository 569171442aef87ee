/**
 * The framework ceiling of `npm run bench`: one routing-controllers route on Koa, with routing-controllers' defaults,
 * answering a constant JSON object. Nothing Gatehouse does can be faster than this on the same machine, so every
 * route's rate is reported as a share of it. Listens on PORT and says so on stderr.
 */
import '../../src/server/threadpool-size';
import 'reflect-metadata';
import { createServer } from 'node:http';
import Koa from 'koa';
import { Get, JsonController, useKoaServer } from 'routing-controllers';

const ANSWER = { username: 'bench', email: 'bench@example.com', verified: true };

@JsonController()
class BareController {
  @Get('/bare')
  bare() {
    return ANSWER;
  }
}

class NoGlobalClasses {}

const app = new Koa();
useKoaServer(app, { controllers: [BareController], middlewares: [NoGlobalClasses], interceptors: [NoGlobalClasses] });
createServer(app.callback()).listen(Number(process.env.PORT), '127.0.0.1', () => {
  process.stderr.write('{"event":"listening"}\n');
});
process.once('SIGTERM', () => process.exit(0));
