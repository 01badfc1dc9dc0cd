// A real OpenID Connect provider for Loadline's web tests: npm's
// oidc-provider (pinned in package-lock.json) on 127.0.0.1:PORT.
//
//   node provider.mjs PORT
//
// Prints "ready ISSUER" on stdout once it listens.  Clients register
// themselves through Dynamic Client Registration (POST /reg), so each test
// can give its own loadline server's callback URL.  Accounts: any login
// name is an account whose email is that name; the email is verified unless
// the name starts with "unverified".  Consent is granted automatically (a
// first-party app), so a sign-in is: login form, then back to the client.
//
// Test controls (never in a real provider):
//   POST /__test/tamper?mode=signature  the next ID token from /token has its
//                                       payload changed after signing.
import Provider from 'oidc-provider';

const port = Number(process.argv[2] || 0);
const issuer = `http://127.0.0.1:${port}`;

let tamperNext = null;

function accountFor(id) {
  return {
    accountId: id,
    async claims() {
      return {
        sub: id,
        email: id,
        email_verified: !id.startsWith('unverified'),
        name: id.split('@')[0],
      };
    },
  };
}

const provider = new Provider(issuer, {
  clients: [],
  features: {
    registration: { enabled: true },
    devInteractions: { enabled: true },
  },
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name'],
  },
  scopes: ['openid', 'email', 'profile'],
  findAccount: async (_ctx, id) => accountFor(id),
  // A first-party application: consent is implied.
  loadExistingGrant: async (ctx) => {
    const grantId = ctx.oidc.result?.consent?.grantId
      || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) {
      return ctx.oidc.provider.Grant.find(grantId);
    }
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope('openid email profile');
    grant.addOIDCClaims(['email', 'email_verified', 'name']);
    await grant.save();
    return grant;
  },
  ttl: { Session: 600, Interaction: 600, Grant: 600, AuthorizationCode: 60, AccessToken: 600, IdToken: 600 },
});

function b64urlJson(part) {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
}

// Changes the payload of a signed ID token without re-signing it.
function tamper(idToken) {
  const [h, p, s] = idToken.split('.');
  const payload = b64urlJson(p);
  payload.email = 'mallory@evil.test';
  const p2 = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${h}.${p2}.${s}`;
}

provider.use(async (ctx, next) => {
  if (ctx.path === '/__test/tamper' && ctx.method === 'POST') {
    tamperNext = ctx.query.mode || 'signature';
    ctx.status = 204;
    return;
  }
  await next();
  if (ctx.path === '/token' && tamperNext && ctx.body && ctx.body.id_token) {
    ctx.body = { ...ctx.body, id_token: tamper(ctx.body.id_token) };
    tamperNext = null;
  }
});

provider.on('server_error', (_ctx, err) => {
  process.stderr.write(`server_error: ${err.stack}\n`);
});

const server = provider.listen(port, '127.0.0.1', () => {
  process.stdout.write(`ready ${issuer}\n`);
});

function stop() {
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
