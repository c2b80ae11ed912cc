import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { AUTH_POLICY, FORM_TOKEN_IF_SIGNED_IN, PAGE_ROUTES, type AuthPolicy } from '../../src/auth/auth.decorators.js';
import type { TestApp } from './test-app.js';

export interface Route {
  method: string;
  path: string;
  handler: string;
  policy: AuthPolicy | undefined;
  /** A page (`@PageController()`): the guard admits it by session, never by token. */
  page: boolean;
  /** `@FormTokenIfSignedIn()`: a public form whose token the guard asks of signed-in visitors only. */
  formTokenIfSignedIn: boolean;
  /** False for routes kept out of the OpenAPI document (`@ApiExcludeController`, `@ApiExcludeEndpoint`): pages. */
  inApiDocs: boolean;
}

// @nestjs/swagger's metadata keys (DECORATORS in its constants).
const API_EXCLUDE_CONTROLLER = 'swagger/apiExcludeController';
const API_EXCLUDE_ENDPOINT = 'swagger/apiExcludeEndpoint';

/** Every HTTP route the application's controllers declare, with the auth policy the guard sees. */
export function routesOf(testApp: TestApp): Route[] {
  const reflector = new Reflector();
  const scanner = new MetadataScanner();
  const routes: Route[] = [];
  for (const module of testApp.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
      if (!controller) continue;
      const prefix = (Reflect.getMetadata(PATH_METADATA, controller) as string | undefined) ?? '';
      for (const name of scanner.getAllMethodNames(controller.prototype as object)) {
        const handler = (controller.prototype as Record<string, unknown>)[name] as (...args: unknown[]) => unknown;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (path === undefined) continue; // a helper method, not a route
        const method =
          RequestMethod[(Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod) ?? RequestMethod.GET];
        for (const one of Array.isArray(path) ? path : [path]) {
          routes.push({
            method,
            path: `/${[prefix, one]
              .map((part) => part.replace(/^\/|\/$/g, ''))
              .filter(Boolean)
              .join('/')}`,
            handler: `${controller.name}.${name}`,
            // Exactly how the guard reads it: the handler's decorator wins over the controller's.
            policy: reflector.getAllAndOverride<AuthPolicy | undefined>(AUTH_POLICY, [handler, controller]),
            page: reflector.getAllAndOverride<boolean | undefined>(PAGE_ROUTES, [handler, controller]) === true,
            formTokenIfSignedIn:
              reflector.getAllAndOverride<boolean | undefined>(FORM_TOKEN_IF_SIGNED_IN, [handler, controller]) === true,
            inApiDocs: !(
              (Reflect.getMetadata(API_EXCLUDE_CONTROLLER, controller) as unknown[] | undefined)?.[0] ||
              (Reflect.getMetadata(API_EXCLUDE_ENDPOINT, handler) as { disable?: boolean } | undefined)?.disable
            ),
          });
        }
      }
    }
  }
  return routes;
}
