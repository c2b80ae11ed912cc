import { Module } from '@nestjs/common';
import { HealthController } from './health.controller.js';
import { HealthRepository } from './health.repository.js';
import { ShutdownDrain } from '../lifecycle/shutdown-drain.js';

@Module({ controllers: [HealthController], providers: [HealthRepository, ShutdownDrain] })
export class HealthModule {}
