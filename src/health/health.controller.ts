import { Controller, Get, HttpStatus, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators.js';
import { HealthRepository } from './health.repository.js';

export class HealthDto {
  /** @example "ok" */
  status!: 'ok';
}

export class ReadinessDto extends HealthDto {
  /** @example "ok" */
  database!: 'ok';
}

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthRepository) {}

  /** Liveness: the process is up and serving HTTP. */
  @Get()
  @ApiOkResponse({ type: HealthDto })
  liveness(): HealthDto {
    return { status: 'ok' };
  }

  /** Readiness: the database answers. A load balancer should stop routing here on 503. */
  @Get('ready')
  @ApiOkResponse({ type: ReadinessDto })
  @ApiServiceUnavailableResponse({ description: 'The database is unreachable' })
  async readiness(): Promise<ReadinessDto> {
    try {
      await this.health.pingDatabase();
    } catch {
      throw new ServiceUnavailableException({ statusCode: HttpStatus.SERVICE_UNAVAILABLE, message: 'The database is unreachable' });
    }
    return { status: 'ok', database: 'ok' };
  }
}
