import { applyDecorators, Controller, SetMetadata, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { PAGE_ROUTES } from '../auth/auth.decorators.js';
import { PageErrorFilter } from './page-error.filter.js';

/**
 * A controller of HTML pages: its routes are opened by a session (`@SignedIn()`) or by anyone
 * (`@Public()`), never by an API token; they stay out of the OpenAPI document, and their errors
 * are pages, not problem+json.
 */
export const PageController = () =>
  applyDecorators(Controller(), SetMetadata(PAGE_ROUTES, true), ApiExcludeController(), UseFilters(PageErrorFilter));
