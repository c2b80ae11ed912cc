process.env.TEST_DATABASE = 'sqlite';
