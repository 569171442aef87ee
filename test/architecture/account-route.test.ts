import { expect } from 'chai';
import { getMetadataArgsStorage } from 'routing-controllers';
import { FEATURES } from '../../src/app/features';
import { accountRoute } from '../../src/controllers/account-route';
import { refuseApiKeys } from '../../src/http/refuse-api-keys';

// Gatehouse's own routes never take an API key (issue 42, "useless for the account"): the refusal is part of a
// class-level `@UseBefore(accountRoute)` on every controller, so that a controller added later cannot forget it
// unnoticed.

/** The class-level before-middlewares of a controller, in the order they run. */
function classMiddlewares(controller: object): unknown[] {
  return getMetadataArgsStorage()
    .uses.filter((use) => use.target === controller && use.method === undefined && !use.afterAction)
    .map((use) => use.middleware);
}

describe('architecture: every Gatehouse controller refuses API keys', () => {
  const controllers = FEATURES.flatMap((feature) => feature.controllers);

  it('finds the controllers of every feature, the API keys’ own among them', () => {
    expect(controllers.length).to.be.greaterThan(10);
    expect(controllers.map((controller) => controller.name)).to.include.members([
      'ApiKeysController',
      'AdminApiKeysController',
      'AccountController',
      'AdminUsersController',
    ]);
  });

  it('puts accountRoute on each controller class, first of its class-level middlewares', () => {
    const missing = controllers.filter((controller) => !classMiddlewares(controller).includes(accountRoute));
    expect(missing.map((controller) => controller.name)).to.deep.equal([]);
    // First: a key is refused before a body is judged or a budget spent, so its answer never depends on them.
    const later = controllers.filter((controller) => classMiddlewares(controller)[0] !== accountRoute);
    expect(later.map((controller) => controller.name)).to.deep.equal([]);
  });

  it('does not count a method-level refusal as the class’s', () => {
    // The check above reads class-level uses only: a refusal on some actions would leave the others open.
    for (const controller of controllers) {
      const methodLevel = getMetadataArgsStorage().uses.filter(
        (use) =>
          use.target === controller &&
          use.method !== undefined &&
          (use.middleware === accountRoute || use.middleware === refuseApiKeys),
      );
      expect(methodLevel, controller.name).to.deep.equal([]);
    }
  });
});
